package io.streamtrain.kafka;

import io.streamtrain.files.ScratchDirectory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker: KRaft, one process role set to {@code broker,controller},
 * every listener bound to 127.0.0.1. Used by {@code streamtrain kafka}, the demo and the tests.
 *
 * <p>Built on {@link KafkaRaftServer}, the class {@code kafka-server-start.sh} runs, after
 * formatting the storage directory like {@code kafka-storage.sh format} does. Not the test kit
 * ({@code KafkaClusterTestKit}): it pre-binds every listener to an ephemeral port on the wildcard
 * address and hands that socket to the broker whatever port the config asks for, so it can
 * neither honour a fixed port such as 9092 nor stay on loopback; it also always reformats.
 *
 * <p>Ports: the broker listener uses the requested port; for port 0, and always for the
 * controller listener (which clients never see), a free loopback port is probed first and the
 * start is retried on the rare bind race. A data directory is formatted once and reused, so a
 * restarted {@code streamtrain kafka} keeps its topics.
 *
 * <p>{@link #startSecure} makes it a secured broker ({@link LocalKafkaSecurity}): SASL_SSL and mTLS
 * client listeners, ACLs, certificates generated at start.
 *
 * <p>Caveat: Kafka's server treats some faults as fatal and halts the JVM, exactly as it does
 * standalone; e.g. deleting the data directory under a running broker fails its only log
 * directory and halts this process with exit code 1. Close the broker before deleting its data.
 */
public final class LocalKafka implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalKafka.class);
    private static final String HOST = "127.0.0.1";
    private static final int NODE_ID = 1;
    private static final int START_ATTEMPTS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** The file a secured broker writes into its directory. */
    private static final String SECURED_MARK = LocalKafkaSecurity.SASL_PROPERTIES;

    private final KafkaRaftServer server;
    private final Path dataDir;
    private final boolean deleteOnClose;
    private final int port;
    private final int internalPort;
    private final LocalKafkaSecurity security; // null: a plaintext broker
    private boolean closed;

    private LocalKafka(KafkaRaftServer server, Path dataDir, boolean deleteOnClose, int port, int internalPort,
                       LocalKafkaSecurity security) {
        this.server = server;
        this.dataDir = dataDir;
        this.deleteOnClose = deleteOnClose;
        this.port = port;
        this.internalPort = internalPort;
        this.security = security;
    }

    /**
     * Starts a broker and returns once it accepts clients.
     *
     * @param port the client port on 127.0.0.1; 0 picks a free one
     * @param dataDir where logs and metadata live (formatted on first use, reused afterwards);
     *     null uses a temporary directory that {@link #close()} deletes
     */
    public static LocalKafka start(int port, Path dataDir) throws IOException {
        if (dataDir != null && Files.exists(dataDir.resolve(SECURED_MARK))) {
            // Its data is in DIR/data, which a plaintext broker on DIR would take for a broken partition and halt.
            throw new IllegalArgumentException(dataDir + " holds a secured broker (kafka --secure): start it with --secure, or give another --dir");
        }
        return start(port, dataDir, null);
    }

    /**
     * Starts a secured broker ({@link LocalKafkaSecurity}): SASL_SSL (SCRAM-SHA-512) on {@code port},
     * mTLS on {@code port + 1}, ACLs on. Generates a CA, certificates and a user password into
     * {@code dir}, writes {@code dir/client.properties} and {@code dir/client-mtls.properties}, and
     * keeps the broker's data in {@code dir/data}.
     *
     * @param port the SASL_SSL port on 127.0.0.1; 0 picks a free one with a free next port
     */
    public static LocalKafka startSecure(int port, Path dir) throws IOException {
        if (port == 65535) {
            throw new IllegalArgumentException("port 65535 leaves no next port for the mTLS listener");
        }
        Path root = Files.createDirectories(dir.toAbsolutePath());
        if (Files.exists(root.resolve("meta.properties"))) {
            throw new IllegalArgumentException(root + " holds a plaintext broker's data: give --secure another --dir");
        }
        LocalKafkaSecurity security = LocalKafkaSecurity.generate(root);
        LocalKafka kafka = start(port, root.resolve("data"), security);
        try {
            try (Admin admin = Topics.admin(kafka.adminConnection())) {
                security.setUp(admin);
            }
            security.writeClientProperties(kafka.bootstrapServers(), kafka.mtlsBootstrapServers());
        } catch (IOException | RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    private static LocalKafka start(int port, Path dataDir, LocalKafkaSecurity security) throws IOException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " out of range 0..65535");
        }
        boolean temporary = dataDir == null;
        Path dir = temporary
                ? Files.createTempDirectory("streamtrain-kafka")
                : Files.createDirectories(dataDir.toAbsolutePath());
        long startNanos = System.nanoTime();
        try {
            format(dir);
            for (int attempt = 1; ; attempt++) {
                int brokerPort = port != 0 ? port : security == null ? freePort() : freePortWithFreeNext();
                int controllerPort = freePort();
                int internalPort = security == null ? brokerPort : freePort();
                Map<String, Object> config = config(dir, brokerPort, controllerPort);
                if (security != null) {
                    config.putAll(security.brokerConfig(HOST, brokerPort, internalPort, controllerPort));
                }
                KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
                try {
                    server.startup();
                } catch (RuntimeException e) {
                    shutdownQuietly(server);
                    boolean ourRace = hasCause(e, BindException.class) && (port == 0 || !isBound(port));
                    if (ourRace && attempt < START_ATTEMPTS) {
                        LOG.warn("a probed port was taken before the broker bound it; retrying ({})", e.toString());
                        continue;
                    }
                    if (port != 0 && isBound(port)) {
                        throw new KafkaException(HOST + ":" + port + " is already in use (another broker running?)", e);
                    }
                    throw new KafkaException("could not start Kafka on " + HOST + ":" + brokerPort + ": " + e.getMessage(), e);
                }
                LocalKafka kafka = new LocalKafka(server, dir, temporary, brokerPort, internalPort, security);
                try {
                    kafka.awaitReady();
                } catch (RuntimeException e) {
                    kafka.close();
                    throw e;
                }
                LOG.info("Kafka ready on {} in {} ms (data in {})", kafka.bootstrapServers(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), dir);
                return kafka;
            }
        } catch (IOException | RuntimeException e) {
            if (temporary) {
                ScratchDirectory.deleteOrWarn(dir);
            }
            throw e;
        }
    }

    /**
     * This broker as a client reaches it: with Kafka's default client settings, or on a secured
     * broker over SASL_SSL as the user of {@code client.properties} (who has the loop's ACLs).
     */
    public KafkaConnection connection() {
        return security == null ? KafkaConnection.to(bootstrapServers()) : new KafkaConnection(bootstrapServers(), security.saslClient());
    }

    /** A secured broker over SASL_SSL as any SCRAM user (created with {@link #adminConnection()}). */
    public KafkaConnection saslConnection(String user, String password) {
        return new KafkaConnection(bootstrapServers(), requireSecure().saslClient(user, password));
    }

    /** A secured broker over mTLS with the client certificate of {@code client-mtls.properties}. */
    public KafkaConnection mtlsConnection() {
        return new KafkaConnection(mtlsBootstrapServers(), requireSecure().mtlsClient());
    }

    /** The broker's own identity, a super user on a secured broker (users, ACLs, topics); else {@link #connection()}. */
    public KafkaConnection adminConnection() {
        return security == null ? connection() : new KafkaConnection(HOST + ":" + internalPort, security.brokerClient());
    }

    public boolean isSecure() {
        return security != null;
    }

    /** Where a secured broker keeps its certificates and client properties files. */
    public Path securityDir() {
        return requireSecure().dir();
    }

    /** The mTLS listener of a secured broker, {@code 127.0.0.1:PORT+1}. */
    public String mtlsBootstrapServers() {
        requireSecure();
        return HOST + ":" + (port + 1);
    }

    private LocalKafkaSecurity requireSecure() {
        if (security == null) {
            throw new IllegalStateException("a plaintext broker (start it with startSecure)");
        }
        return security;
    }

    /** {@code 127.0.0.1:PORT}: the plaintext listener, or a secured broker's SASL_SSL one. */
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Creates the topic unless it exists (an existing topic keeps its partition count). */
    public void createTopic(String name, int partitions) {
        Topics.ensure(adminConnection(), Map.of(name, partitions));
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long t0 = System.nanoTime();
        shutdownQuietly(server);
        if (deleteOnClose) {
            ScratchDirectory.deleteOrWarn(dataDir);
        }
        LOG.info("Kafka on {} stopped in {} ms", bootstrapServers(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    private static Map<String, Object> config(Path dir, int brokerPort, int controllerPort) {
        Map<String, Object> c = new HashMap<>();
        c.put("process.roles", "broker,controller");
        c.put("node.id", String.valueOf(NODE_ID));
        c.put("listeners", "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" + controllerPort);
        c.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
        c.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        c.put("inter.broker.listener.name", "PLAINTEXT");
        c.put("controller.listener.names", "CONTROLLER");
        // A static voter set: its port lives in config, not in the log, so a restart on a new
        // controller port reuses the same data directory.
        c.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        c.put("log.dirs", dir.toString());
        c.put("metadata.log.dir", dir.toString());
        // One broker: every internal topic must be satisfiable with a single replica, otherwise
        // transactional producers (the exactly-once sink) wait forever.
        c.put("offsets.topic.replication.factor", "1");
        c.put("transaction.state.log.replication.factor", "1");
        c.put("transaction.state.log.min.isr", "1");
        c.put("share.coordinator.state.topic.replication.factor", "1");
        c.put("share.coordinator.state.topic.min.isr", "1");
        c.put("default.replication.factor", "1");
        c.put("min.insync.replicas", "1");
        // Fewer internal partitions than the default 50: faster first group/transaction on a laptop.
        c.put("offsets.topic.num.partitions", "8");
        c.put("transaction.state.log.num.partitions", "8");
        c.put("group.initial.rebalance.delay.ms", "0");
        // Exactly-once sinks need transaction.timeout.ms above checkpoint + restart time.
        c.put("transaction.max.timeout.ms", String.valueOf(TimeUnit.HOURS.toMillis(1)));
        c.put("auto.create.topics.enable", "true");
        c.put("num.partitions", "1");
        // The cleaner's default 128 MiB dedupe buffer is wasted on a local broker.
        c.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 << 20));
        // Write the logs to disk every second instead of leaving it to the kernel. This broker shares
        // its disk (and its cores) with the job it serves, and left to itself the kernel writes back a
        // whole run's feedback topic at once, ~1 GB within a second some 30 s after the first writes
        // (vm.dirty_expire_centisecs), stalling every push for up to 0.8 s
        // (docs/decisions/0008-low-latency-settings.md). The scheduler that checks the interval is off
        // by default.
        c.put("log.flush.interval.ms", "1000");
        c.put("log.flush.scheduler.interval.ms", "1000");
        return c;
    }

    private static void format(Path dir) throws IOException {
        if (Files.exists(dir.resolve("meta.properties"))) {
            LOG.debug("{} is already formatted; reusing it", dir);
            return;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            new Formatter()
                    .setPrintStream(ps)
                    .setNodeId(NODE_ID)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setDirectories(List.of(dir.toString()))
                    .setMetadataLogDirectory(dir.toString())
                    .setControllerListenerName("CONTROLLER")
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .run();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("could not format Kafka storage in " + dir + ": " + e.getMessage(), e);
        }
        LOG.debug("format {}: {}", dir, out.toString(StandardCharsets.UTF_8).trim());
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (Admin admin = Topics.admin(adminConnection())) {
            while (true) {
                try {
                    if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new KafkaException("interrupted while waiting for Kafka", e);
                } catch (Exception e) {
                    LOG.debug("Kafka not ready yet: {}", e.toString());
                }
                if (System.nanoTime() > deadline) {
                    throw new KafkaException("Kafka on " + bootstrapServers() + " not ready after " + READY_TIMEOUT);
                }
                sleep(50);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
            return s.getLocalPort();
        }
    }

    /** A free port whose next port is free too (the secured broker's SASL_SSL and mTLS listeners). */
    private static int freePortWithFreeNext() throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            int p = freePort();
            if (p < 65535 && !isBound(p + 1)) {
                return p;
            }
        }
        throw new IOException("no free pair of ports on " + HOST);
    }

    private static boolean isBound(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static void shutdownQuietly(KafkaRaftServer server) {
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            LOG.warn("error while stopping Kafka", e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while waiting for Kafka", e);
        }
    }
}
