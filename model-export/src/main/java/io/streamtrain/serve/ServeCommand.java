package io.streamtrain.serve;

import io.streamtrain.bundle.LocalBundle;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaPreflight;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/** {@code streamtrain serve}: HTTP scoring from a bundle until SIGTERM or Ctrl-C, then a drain. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serves a bundle over HTTP until SIGTERM/Ctrl-C: POST /score (one example or {\"examples\": [...]},"
                + " each as {\"features\": [{\"field\": F, \"id\": I, \"value\": V}]} or {\"line\": \"...\"} in the bundle's"
                + " input format), the KServe v2 protocol (POST /v2/models/NAME/infer, GET /v2/models/NAME, /v2/health/ready),"
                + " GET /model (the model card), GET /health/live, GET /health/ready, GET /metrics (Prometheus) and"
                + " POST /admin/reload (from this host only). On SIGTERM it stops accepting, answers the requests in flight"
                + " and exits 0. Prints a metrics line every --report-every while requests arrive.")
public final class ServeCommand implements Callable<Integer> {
    /** A body is held in memory whole: past this, one request could take a large part of the heap. */
    static final int MAX_REQUEST_BYTES_LIMIT = 64 << 20;
    static final int MAX_EXAMPLES_LIMIT = 100_000;
    static final int MAX_FEATURES_LIMIT = 10_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--bundle", required = true, paramLabel = "DIR",
            description = "A bundle written by export --bundle (a symlink works: reloads follow it), or one on s3://…, copied to a"
                    + " new local directory first (each reload makes a new copy; the old one is deleted once its model is closed).")
    Path bundleDir;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--threads", defaultValue = "8",
            description = "Request threads; connections waiting for a client hold none (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--max-request-bytes", defaultValue = "1048576",
            description = "Larger bodies get 413; at most " + MAX_REQUEST_BYTES_LIMIT + " (default: ${DEFAULT-VALUE}).")
    int maxRequestBytes;

    @Option(names = "--max-examples", defaultValue = "1000",
            description = "More examples in one request get 413; at most " + MAX_EXAMPLES_LIMIT + " (default: ${DEFAULT-VALUE}).")
    int maxExamples;

    @Option(names = "--max-features", defaultValue = "1000",
            description = "More features in one example get 400; at most " + MAX_FEATURES_LIMIT + " (default: ${DEFAULT-VALUE}).")
    int maxFeatures;

    @Option(names = "--idle-timeout", defaultValue = "30", paramLabel = "SECONDS",
            description = "A connection that sends nothing for this long is closed, mid-request or between requests (default: ${DEFAULT-VALUE}).")
    int idleTimeoutSeconds;

    @Option(names = "--drain-timeout", defaultValue = "20", paramLabel = "SECONDS",
            description = "On SIGTERM, how long requests in flight may take to finish (default: ${DEFAULT-VALUE}).")
    int drainTimeoutSeconds;

    @Option(names = "--shutdown-delay", defaultValue = "0", paramLabel = "SECONDS",
            description = "On SIGTERM, keep answering (with /health/ready at 503) this long before draining, so load"
                    + " balancers stop sending first (default: ${DEFAULT-VALUE}).")
    int shutdownDelaySeconds;

    @Option(names = "--tls-cert", paramLabel = "PEM", description = "Serve HTTPS with this PEM certificate chain (needs --tls-key).")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The PEM PKCS#8 private key of --tls-cert.")
    Path tlsKey;

    @Option(names = "--follow", paramLabel = "TOPIC",
            description = "Apply the training job's model updates from this topic (train --model-updates-topic) while serving.")
    String followTopic;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers for --follow (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE", description = KafkaClientProperties.DESCRIPTION)
    Path kafkaProperties;

    @Option(names = "--store", paramLabel = "DIR",
            description = "With --follow: the writable serving store made from the bundle, kept across restarts (default:"
                    + " <bundle's real directory>.store). A reloaded bundle B gets <B's directory name>.store beside it; a bundle on"
                    + " s3://… (without --store, or reloaded) gets one beside its local copy, deleted with it.")
    Path storeDir;

    @Option(names = "--ready-max-lag", defaultValue = "1000", paramLabel = "RECORDS",
            description = "With --follow: /health/ready answers 200 only while the follower is at most this many records"
                    + " behind the topic (and has not failed) (default: ${DEFAULT-VALUE}).")
    long readyMaxLag;

    @Option(names = "--reload-timeout", defaultValue = "120", paramLabel = "SECONDS",
            description = "With --follow: a reloaded bundle's follower must catch up within this, or the reload is abandoned (default: ${DEFAULT-VALUE}).")
    int reloadTimeoutSeconds;

    @Option(names = "--watch", defaultValue = "0", paramLabel = "SECONDS",
            description = "Check every SECONDS whether the bundle at --bundle changed, and switch to it as POST /admin/reload does:"
                    + " a local path when it resolves to another directory (e.g. a symlink moved to a new export); an s3://… one"
                    + " when its files (names, sizes, times) or its model card's content changed (upload model-card.json last); 0: off"
                    + " (default: ${DEFAULT-VALUE}).")
    int watchSeconds;

    @Option(names = "--report-every", defaultValue = "10", description = "Seconds between metrics lines (default: ${DEFAULT-VALUE}).")
    int reportEvery;

    @Override
    public Integer call() throws Exception {
        ScoringServer.Settings settings = settings();
        // Taken before the first copy: a bundle that changes while it is copied is reloaded at the first check.
        Object watched = watchSeconds > 0 ? BundleWatcher.version(bundleDir).orElse(null) : null;
        ServedModel first = open(bundleDir, storeDir);
        ScoringServer server = new ScoringServer(settings, first, dir -> open(dir, null));
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        Signal.handle(new Signal("INT"), s -> stop.countDown());
        System.out.printf("serve: %s model, %d rows, checkpoint %s; listening on %s://%s:%d%n", first.card().modelType(),
                first.card().contents().rows(), first.card().checkpoint().path(), settings.tls() == null ? "http" : "https",
                host, server.port());
        BundleWatcher watcher = watchSeconds > 0 ? new BundleWatcher(bundleDir, watched, Duration.ofSeconds(watchSeconds), server) : null;
        report(server.metrics(), stop);
        System.out.println("serve: stopping: answering what is in flight");
        server.announceStop();
        Thread.sleep(TimeUnit.SECONDS.toMillis(shutdownDelaySeconds));
        if (watcher != null) {
            watcher.close();
        }
        boolean drained = server.stop(Duration.ofSeconds(drainTimeoutSeconds));
        System.out.println(drained ? "serve: stopped after answering every request" : "serve: stopped with requests unanswered");
        return drained ? 0 : 1;
    }

    /** The settings, checked: a bad value is refused now, with the option's name, not in a request later. */
    ScoringServer.Settings settings() {
        require(port >= 0 && port <= 65535, "--port must be 0..65535, not " + port);
        require(threads >= 1 && threads <= 1000, "--threads must be 1..1000, not " + threads);
        require(maxRequestBytes >= 1 && maxRequestBytes <= MAX_REQUEST_BYTES_LIMIT, "--max-request-bytes must be 1.."
                + MAX_REQUEST_BYTES_LIMIT + " (64 MiB; a body is held in memory whole), not " + maxRequestBytes);
        require(maxExamples >= 1 && maxExamples <= MAX_EXAMPLES_LIMIT, "--max-examples must be 1.." + MAX_EXAMPLES_LIMIT + ", not " + maxExamples);
        require(maxFeatures >= 1 && maxFeatures <= MAX_FEATURES_LIMIT, "--max-features must be 1.." + MAX_FEATURES_LIMIT + ", not " + maxFeatures);
        require(idleTimeoutSeconds >= 1, "--idle-timeout must be at least 1 second, not " + idleTimeoutSeconds);
        require(drainTimeoutSeconds >= 0, "--drain-timeout must not be negative");
        require(shutdownDelaySeconds >= 0, "--shutdown-delay must not be negative");
        require(reportEvery >= 1, "--report-every must be at least 1 second, not " + reportEvery);
        require(watchSeconds >= 0, "--watch must not be negative");
        require(readyMaxLag >= 0, "--ready-max-lag must not be negative");
        require(reloadTimeoutSeconds >= 1, "--reload-timeout must be at least 1 second");
        require((tlsCert == null) == (tlsKey == null), "--tls-cert and --tls-key go together: give both or neither");
        require(followTopic != null || storeDir == null, "--store needs --follow (a store holds followed updates)");
        require(ModelStorage.isRemote(bundleDir) || Files.isDirectory(bundleDir), "--bundle " + bundleDir + " is not a directory");
        if (tlsCert != null) {
            require(Files.isReadable(tlsCert), "--tls-cert " + tlsCert + " cannot be read");
            require(Files.isReadable(tlsKey), "--tls-key " + tlsKey + " cannot be read");
        }
        return new ScoringServer.Settings(host, port, threads, maxRequestBytes, maxExamples, maxFeatures,
                Duration.ofSeconds(idleTimeoutSeconds), readyMaxLag, Duration.ofSeconds(reloadTimeoutSeconds),
                tlsCert == null ? null : new ScoringServer.Tls(tlsCert, tlsKey));
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }

    /**
     * Opens a bundle (a remote one from a new local copy, named here), following model updates into
     * its store when --follow is given (store null: the default one).
     */
    private ServedModel open(Path bundle, Path store) throws IOException {
        LocalBundle local = LocalBundle.of(bundle);
        if (local.isCopy()) {
            System.out.printf("serve: %s copied to %s%n", ModelStorage.location(bundle), local.dir());
        }
        if (followTopic == null) {
            return ServedModel.open(local);
        }
        Path real;
        KafkaConnection kafka;
        try {
            real = local.dir().toRealPath();
            kafka = KafkaConnection.of(bootstrap, kafkaProperties);
            KafkaPreflight.check(kafka);
        } catch (IOException | RuntimeException e) {
            local.close();
            throw e;
        }
        // A copy's store goes beside it, and with it once the model closes: the next copy is another bundle.
        Path storeFor = store != null ? store
                : (storeDir != null && !local.isCopy() ? storeDir : real).resolveSibling(real.getFileName() + ".store");
        ServedModel model = ServedModel.following(local, storeFor, new ServedModel.Follow(kafka, followTopic));
        System.out.printf("serve: following %s into %s%n", followTopic, storeFor.toAbsolutePath());
        return model;
    }

    /** Blocks until asked to stop, printing a metrics line while requests arrive. */
    private void report(ServingMetrics metrics, CountDownLatch stop) throws InterruptedException {
        long last = metrics.requests();
        while (!stop.await(reportEvery, TimeUnit.SECONDS)) {
            long now = metrics.requests();
            if (now != last) {
                System.out.printf(Locale.ROOT, "serve: requests=%d rps=%.0f p50_ms=%.3f p99_ms=%.3f%n",
                        now, (now - last) / (double) reportEvery, metrics.latencyMs(0.5), metrics.latencyMs(0.99));
                last = now;
            }
        }
    }
}
