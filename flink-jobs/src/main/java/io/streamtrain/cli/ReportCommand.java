package io.streamtrain.cli;

import io.streamtrain.report.ReportWriter;
import io.streamtrain.report.RunTimeline;
import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.schema.TrainingMetricsCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain report}: a static HTML report of a run, from its metrics topic alone. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Reads a training run's metrics topic (<topic>.metrics) from its beginning to its current end and writes a "
                + "self-contained HTML report: examples/s, consumer lag, window AUC and logloss, staleness, with markers for "
                + "checkpoints, rescales and recoveries, and a summary table. Works after the job is gone.")
public final class ReportCommand implements Callable<Integer> {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = "--metrics-topic", required = true, paramLabel = "TOPIC", description = "The run's metrics topic.")
    String topic;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "The HTML file to write.")
    Path out;

    @Option(names = "--title", description = "Report title (default: the topic).")
    String title;

    @Override
    public Integer call() throws Exception {
        List<TrainingMetrics> records = read();
        if (records.isEmpty()) {
            System.err.println("report: " + topic + " holds no metrics records");
            return 1;
        }
        RunTimeline run = RunTimeline.of(records);
        if (out.toAbsolutePath().getParent() != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
        }
        Files.writeString(out, ReportWriter.html(title != null ? title : topic, run), StandardCharsets.UTF_8);
        System.out.printf("report: %d records, %d s, %d examples, %d checkpoints, %d rescales, %d recoveries -> %s%n",
                records.size(), run.seconds(), run.examples(), run.count(RunTimeline.Kind.CHECKPOINT),
                run.count(RunTimeline.Kind.RESCALE), run.count(RunTimeline.Kind.RECOVERY), out.toAbsolutePath());
        return 0;
    }

    private List<TrainingMetrics> read() throws Exception {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        TrainingMetricsCodec codec = new TrainingMetricsCodec();
        List<TrainingMetrics> records = new ArrayList<>();
        int unreadable = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var infos = consumer.partitionsFor(topic, READ_TIMEOUT);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalArgumentException("topic " + topic + " does not exist");
            }
            List<TopicPartition> partitions = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + READ_TIMEOUT);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    try {
                        records.add(codec.decode(r.value()));
                    } catch (Exception e) {
                        unreadable++;
                    }
                }
            }
        }
        if (unreadable > 0) {
            System.err.println("report: skipped " + unreadable + " records that are not TrainingMetrics");
        }
        return records;
    }
}
