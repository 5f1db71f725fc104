package io.streamtrain.cli;

import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.files.OutputFile;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.report.MetricsTopic;
import io.streamtrain.report.ReportWriter;
import io.streamtrain.report.RunTimeline;
import io.streamtrain.schema.TrainingMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain report}: a static HTML report of a run, from its metrics topic alone. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Reads a training run's metrics topic (<topic>.metrics) from its beginning to its current end and writes a "
                + "self-contained HTML report: examples/s, consumer lag, window AUC and logloss, staleness, with markers for "
                + "checkpoints, rescales and recoveries, and a summary table; or the curves as SVG files. Works after the job is gone.")
public final class ReportCommand implements Callable<Integer> {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE", description = KafkaClientProperties.DESCRIPTION)
    Path kafkaProperties;

    @Option(names = "--metrics-topic", required = true, paramLabel = "TOPIC", description = "The run's metrics topic.")
    String topic;

    @Option(names = "--out", paramLabel = "FILE", description = "The HTML file to write.")
    Path out;

    @Option(names = "--svg-dir", paramLabel = "DIR",
            description = "Also (or instead) write each curve as a standalone SVG, <topic>-<series>.svg, e.g. to embed in docs.")
    Path svgDir;

    @Option(names = "--title", description = "Report title (default: the topic).")
    String title;

    @Override
    public Integer call() throws Exception {
        if (out == null && svgDir == null) {
            throw new IllegalArgumentException("nothing to write: give --out FILE and/or --svg-dir DIR");
        }
        KafkaConnection kafka = KafkaConnection.of(bootstrap, kafkaProperties);
        KafkaPreflight.check(kafka);
        MetricsTopic read = MetricsTopic.readToEnd(kafka, topic, READ_TIMEOUT);
        if (read.unreadable() > 0) {
            System.err.println("report: skipped " + read.unreadable() + " records that are not TrainingMetrics");
        }
        List<TrainingMetrics> records = read.records();
        if (records.isEmpty()) {
            System.err.println("report: " + topic + " holds no metrics records");
            return 1;
        }
        RunTimeline run = RunTimeline.of(records);
        System.out.printf("report: %d records, %d s, %d examples, %d checkpoints, %d rescales, %d recoveries%n",
                records.size(), run.seconds(), run.examples(), run.count(RunTimeline.Kind.CHECKPOINT),
                run.count(RunTimeline.Kind.RESCALE), run.count(RunTimeline.Kind.RECOVERY));
        if (out != null) {
            String html = ReportWriter.html(title != null ? title : topic, run);
            OutputFile.write(out, partial -> Files.writeString(partial, html, StandardCharsets.UTF_8));
            System.out.println("report: wrote " + out.toAbsolutePath());
        }
        if (svgDir != null) {
            for (Path svg : ReportWriter.writeSvgs(svgDir, topic, run)) {
                System.out.println("report: wrote " + svg.toAbsolutePath());
            }
        }
        return 0;
    }
}
