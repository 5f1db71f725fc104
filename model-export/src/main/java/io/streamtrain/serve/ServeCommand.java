package io.streamtrain.serve;

import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.bundle.Bundle;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.kafka.KafkaConnection;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain serve}: HTTP JSON scoring from a bundle until Ctrl-C. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serves a bundle over HTTP JSON until Ctrl-C: POST /score (one example or {\"examples\": [...]},"
                + " each as {\"features\": [{\"field\": F, \"id\": I, \"value\": V}]} or {\"line\": \"...\"} in the bundle's"
                + " input format), GET /model (the model card), GET /health, GET /metrics. Prints a metrics line every"
                + " --report-every while requests arrive.")
public final class ServeCommand implements Callable<Integer> {
    @Option(names = "--bundle", required = true, paramLabel = "DIR", description = "A bundle written by export --bundle.")
    Path bundleDir;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--threads", defaultValue = "4", description = "Request threads (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--max-request-bytes", defaultValue = "1048576", description = "Larger bodies get 413 (default: ${DEFAULT-VALUE}).")
    int maxRequestBytes;

    @Option(names = "--max-examples", defaultValue = "1000", description = "More examples in one request get 413 (default: ${DEFAULT-VALUE}).")
    int maxExamples;

    @Option(names = "--max-features", defaultValue = "1000", description = "More features in one example get 400 (default: ${DEFAULT-VALUE}).")
    int maxFeatures;

    @Option(names = "--follow", paramLabel = "TOPIC",
            description = "Apply the training job's model updates from this topic (train --model-updates-topic) while serving.")
    String followTopic;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers for --follow (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE", description = KafkaClientProperties.DESCRIPTION)
    Path kafkaProperties;

    @Option(names = "--store", paramLabel = "DIR",
            description = "With --follow: the writable serving store made from the bundle, kept across restarts (default: <bundle>.store).")
    Path storeDir;

    @Option(names = "--report-every", defaultValue = "10", description = "Seconds between metrics lines (default: ${DEFAULT-VALUE}).")
    int reportEvery;

    @Override
    public Integer call() throws Exception {
        if (followTopic == null) {
            try (Bundle bundle = Bundle.open(bundleDir)) {
                serve(bundle, Map::of);
            }
            return 0;
        }
        Path store = storeDir != null ? storeDir : bundleDir.resolveSibling(bundleDir.getFileName() + ".store");
        try (Bundle bundle = Bundle.openStore(bundleDir, store);
                ModelFollower follower = new ModelFollower(KafkaConnection.of(bootstrap, kafkaProperties), followTopic, bundle)) {
            System.out.printf("serve: following %s into %s%n", followTopic, store.toAbsolutePath());
            serve(bundle, follower::status);
        }
        return 0;
    }

    private void serve(Bundle bundle, Supplier<Map<String, Object>> followStatus) throws Exception {
        try (ScoringServer server = new ScoringServer(settings(), LoadedModel.of(bundle), bundle.card(), followStatus)) {
            System.out.printf("serve: %s model, %d rows, checkpoint %s; listening on http://%s:%d%n",
                    bundle.card().modelType(), bundle.card().contents().rows(), bundle.card().checkpoint().path(), host, server.port());
            awaitShutdown(server.metrics());
        }
    }

    ScoringServer.Settings settings() {
        return new ScoringServer.Settings(host, port, threads, maxRequestBytes, maxExamples, maxFeatures);
    }

    /** Blocks until the JVM is asked to stop, printing a metrics line while requests arrive. */
    void awaitShutdown(ServingMetrics metrics) throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(stop::countDown);
        Runtime.getRuntime().addShutdownHook(hook);
        long last = metrics.requests();
        while (!stop.await(reportEvery, java.util.concurrent.TimeUnit.SECONDS)) {
            long now = metrics.requests();
            if (now != last) {
                System.out.printf(Locale.ROOT, "serve: requests=%d rps=%.0f p50_ms=%.3f p99_ms=%.3f%n",
                        now, (now - last) / (double) reportEvery, metrics.latencyMs(0.5), metrics.latencyMs(0.99));
                last = now;
            }
        }
        System.out.println("serve: stopping");
    }
}
