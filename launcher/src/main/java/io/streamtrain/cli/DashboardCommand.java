package io.streamtrain.cli;

import java.nio.file.Path;
import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.report.Dashboard;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain dashboard}: a live page of a running job, from its metrics topic. */
@Command(name = "dashboard", mixinStandardHelpOptions = true,
        description = "Follows a training run's metrics topic (<topic>.metrics) from its beginning and serves a live page on "
                + "127.0.0.1 until Ctrl-C: examples/s, consumer lag, window AUC and logloss, staleness p99, with markers for "
                + "checkpoints, rescales and recoveries (the same rules as `report`). The page needs no internet; "
                + "GET /api/timeline is its JSON.")
public final class DashboardCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE", description = KafkaClientProperties.DESCRIPTION)
    Path kafkaProperties;

    @Option(names = "--metrics-topic", required = true, paramLabel = "TOPIC",
            description = "The run's metrics topic; it may not exist yet (the page waits for the job to create it).")
    String topic;

    @Option(names = "--port", defaultValue = "8088", description = "Port on 127.0.0.1, 0 for any free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--report-every", defaultValue = "10s", converter = DurationConverter.class,
            description = "Time between progress lines while records arrive (default: ${DEFAULT-VALUE}).")
    Duration reportEvery;

    @Override
    public Integer call() throws Exception {
        KafkaConnection kafka = KafkaConnection.of(bootstrap, kafkaProperties);
        KafkaPreflight.check(kafka);
        try (Dashboard dashboard = Dashboard.start(kafka, topic, port)) {
            System.out.println("dashboard: following " + topic + " on " + bootstrap + "; open " + dashboard.url() + " (Ctrl-C stops)");
            dashboard.awaitShutdown(System.out, reportEvery);
        }
        return 0;
    }
}
