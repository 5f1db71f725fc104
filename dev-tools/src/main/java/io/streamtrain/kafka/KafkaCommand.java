package io.streamtrain.kafka;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain kafka}: runs a local single-node KRaft broker until Ctrl-C. */
@Command(name = "kafka", mixinStandardHelpOptions = true,
        description = "Runs a real single-node Kafka broker (KRaft, combined controller and broker) on 127.0.0.1 "
                + "until interrupted. Data persists in --dir across restarts. With --secure: a SASL_SSL listener (SCRAM-SHA-512)"
                + " on --port and an mTLS listener (client certificates) on the next port, ACLs on; a new CA, certificates"
                + " and user password are generated into --dir at each start, with DIR/client.properties (SASL_SSL) and"
                + " DIR/client-mtls.properties for --kafka-properties, and the data in DIR/data.")
public final class KafkaCommand implements Callable<Integer> {
    private static final String PLAIN_DIR = ".streamtrain/kafka";
    private static final String SECURE_DIR = ".streamtrain/kafka-secure";

    @Spec
    CommandSpec spec;

    @Option(names = "--port", defaultValue = "9092", paramLabel = "PORT",
            description = "Client port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Data directory, formatted on first use (default: " + PLAIN_DIR + ", with --secure " + SECURE_DIR + ").")
    Path dir;

    @Option(names = "--secure", description = "A secured broker: SASL_SSL and mTLS listeners, ACLs (see the description).")
    boolean secure;

    @Option(names = "--topics", split = ",", paramLabel = "NAME:PARTITIONS",
            description = "Topics to create if missing, e.g. examples:4,examples.dlq:1 (partitions default 1).")
    List<String> topics = List.of();

    private final CountDownLatch stopped = new CountDownLatch(1);

    @Override
    public Integer call() throws Exception {
        Map<String, Integer> wanted = parseTopics(topics);
        LocalKafka kafka;
        try {
            Path where = dir != null ? dir : Path.of(secure ? SECURE_DIR : PLAIN_DIR);
            kafka = secure ? LocalKafka.startSecure(port, where) : LocalKafka.start(port, where);
        } catch (KafkaException | IOException e) {
            spec.commandLine().getErr().println("kafka: error: " + e.getMessage());
            return 1;
        }
        Thread hook = new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "streamtrain-kafka-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        PrintWriter out = spec.commandLine().getOut();
        try {
            Topics.ensure(kafka.adminConnection(), wanted);
            if (kafka.isSecure()) {
                Path security = kafka.securityDir();
                out.printf("kafka: SASL_SSL (SCRAM-SHA-512) on %s: --kafka-properties %s%n", kafka.bootstrapServers(),
                        security.resolve(LocalKafkaSecurity.SASL_PROPERTIES));
                out.printf("kafka: mTLS on %s: --kafka-properties %s%n", kafka.mtlsBootstrapServers(), security.resolve(LocalKafkaSecurity.MTLS_PROPERTIES));
            }
            out.printf("kafka: listening on %s (data in %s); Ctrl-C to stop%n", kafka.bootstrapServers(), kafka.dataDir());
            out.flush();
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting and the hook is closing the broker; close() below waits for it
            }
            kafka.close(); // idempotent
        }
        return 0;
    }

    /** Stops a running {@link #call()} (for tests and embedding; Ctrl-C does the same). */
    public void stop() {
        stopped.countDown();
    }

    private Map<String, Integer> parseTopics(List<String> specs) {
        Map<String, Integer> result = new LinkedHashMap<>();
        for (String s : specs) {
            String t = s.trim();
            if (t.isEmpty()) {
                continue;
            }
            int colon = t.lastIndexOf(':');
            String name = colon < 0 ? t : t.substring(0, colon);
            int partitions;
            try {
                partitions = colon < 0 ? 1 : Integer.parseInt(t.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(), "--topics: '" + t + "' is not NAME:PARTITIONS");
            }
            if (name.isEmpty() || partitions < 1) {
                throw new ParameterException(spec.commandLine(), "--topics: '" + t + "' is not NAME:PARTITIONS with PARTITIONS >= 1");
            }
            result.put(name, partitions);
        }
        return result;
    }
}
