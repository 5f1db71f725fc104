package io.streamtrain.cli;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.ingest.synthetic.HeldOut;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.IngestStats;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.model.ModelKind;
import io.streamtrain.report.Dashboard;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.Chaos;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code streamtrain demo}: embedded Kafka, a planted synthetic stream, FM training, held-out comparison. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Starts a real Kafka broker on 127.0.0.1, writes a synthetic stream drawn from a planted factorization "
                + "machine, trains an FM (or --model) on it with Flink until the stream is idle, and compares the learned model's "
                + "held-out AUC/logloss with the planted model's. A deep --model takes the planted fields as its tower's inputs.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--examples", defaultValue = "200000", description = "Training examples (default: ${DEFAULT-VALUE}).")
    long examples;

    @Option(names = "--seed", defaultValue = "7", description = "Seed of the planted model and data (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--model", converter = FlinkEnumConverter.Models.class, completionCandidates = FlinkEnumConverter.Models.class,
            description = "${COMPLETION-CANDIDATES} (streamtrain.train.model).")
    ModelKind model;

    @Option(names = "--dim", defaultValue = "4", description = "FM dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--parallelism", defaultValue = "2", description = "Job parallelism (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = "--batch-size", description = "Examples per mini-batch (streamtrain.train.batch-size).")
    Integer batchSize;

    @Option(names = "--vocabulary", defaultValue = "100", description = "Ids per field of the planted model (default: ${DEFAULT-VALUE}).")
    int vocabulary;

    // The trainer's default (0.05, with Adagrad's initial accumulator 10) suits click logs of many
    // fields; on the planted 8-field stream of 200k examples it leaves a held-out AUC gap of 0.050
    // where 0.1 leaves 0.034 (docs/benchmarks.md).
    @Option(names = "--learning-rate", defaultValue = "0.1",
            description = "Adagrad step size (streamtrain.ps.learning-rate; default: ${DEFAULT-VALUE}, above the trainer's, for the short planted stream).")
    Double learningRate;

    @Option(names = "--dir", defaultValue = ".streamtrain/demo", description = "Working directory, cleared first (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--taskmanagers", defaultValue = "0",
            description = "Train on a local reactive cluster of this many TaskManager JVMs (1 slot each) instead of a Flink inside this process (default: in-process).")
    int taskManagers;

    @Option(names = "--chaos", description = "With --taskmanagers: kill and add TaskManagers on a schedule while training, and print each recovery's duration.")
    boolean chaos;

    @Option(names = "--chaos-every", defaultValue = "15s", converter = DurationConverter.class, description = "Time between chaos changes (default: ${DEFAULT-VALUE}).")
    Duration chaosEvery;

    @Option(names = "--rate", defaultValue = "4000",
            description = "With --chaos: examples/s written while training runs, so that training outlasts the chaos (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--dashboard",
            description = "Also serve the live dashboard of the run on 127.0.0.1 (see `dashboard`); it stays up after the run until Ctrl-C.")
    boolean dashboard;

    @Mixin
    ConfigurationSources sources;

    @Option(names = "--dashboard-port", defaultValue = "8088", description = "Port of --dashboard, 0 for any free one (default: ${DEFAULT-VALUE}).")
    int dashboardPort;

    @Override
    public Integer call() throws Exception {
        if (chaos && taskManagers < 1) {
            throw new IllegalArgumentException("--chaos needs a cluster: add --taskmanagers N (e.g. 2)");
        }
        clear(dir);
        System.err.println("demo: starting Kafka (KRaft) on 127.0.0.1 ...");
        Dashboard page = null;
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"))) {
            String topic = "demo-examples";
            if (dashboard) {
                page = Dashboard.start(kafka.connection(), topic + ".metrics", dashboardPort);
                System.out.println("demo: live dashboard at " + page.url());
            }
            PlantedFm truth = new PlantedFm(seed, PlantedFm.DEFAULT_FIELDS, vocabulary, PlantedFm.DEFAULT_ZIPF_EXPONENT, PlantedFm.DEFAULT_DIM);
            IngestSettings ingestSettings = IngestSettings.of(kafka.connection(), topic);
            Thread stream = null;
            if (chaos) {
                stream = new Thread(() -> writeSteadily(ingestSettings, truth), "demo-stream");
                stream.start();
            } else {
                IngestStats ingest = SyntheticIngest.ingestSynthetic(ingestSettings.withProgress(System.err::println, Duration.ofSeconds(2)),
                        truth, examples, seed, System.currentTimeMillis());
                System.err.println(ingest.summaryLine());
            }

            Configuration conf = sources.resolve(new Flags()
                    .with("--model", TrainingOptions.MODEL, model)
                    .with("--dim", PsOptions.DIM, dim)
                    .with("--learning-rate", PsOptions.LEARNING_RATE, learningRate)
                    .with("--batch-size", TrainingOptions.BATCH_SIZE, batchSize), System.err::println);
            conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
            conf.set(TrainingOptions.TOPIC, topic);
            conf.set(TrainingOptions.NAME, "demo");
            if (conf.get(TrainingOptions.MODEL).isDeep() && !conf.contains(TrainingOptions.FIELDS)) {
                conf.set(TrainingOptions.FIELDS, PlantedFm.DEFAULT_FIELDS); // every planted field feeds the tower
            }
            Path checkpoints = dir.resolve("checkpoints");
            TrainingRun.Settings settings = new TrainingRun.Settings(
                    conf, checkpoints, parallelism, Duration.ofSeconds(1), Duration.ofSeconds(3), false, System.err);
            TrainingSummary summary;
            if (taskManagers > 0) {
                LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), taskManagers, 1, MemorySize.parse("1280m"), new Configuration());
                System.err.println("demo: started a reactive cluster of " + taskManagers + " TaskManager JVM(s) in " + cluster.layout().root());
                Chaos monkey = new Chaos(cluster, chaosEvery, taskManagers + 1, System.err);
                Thread chaosThread = new Thread(monkey, "demo-chaos");
                try {
                    if (chaos) {
                        chaosThread.start();
                    }
                    summary = TrainingRun.run(settings.onCluster(cluster.layout().root()));
                } finally {
                    monkey.stop();
                    chaosThread.interrupt();
                    if (stream != null) {
                        stream.interrupt();
                    }
                    cluster.stop(Duration.ofSeconds(10));
                }
            } else {
                summary = TrainingRun.run(settings);
            }
            System.err.println(summary.line());

            HeldOut heldOut = HeldOut.evaluate(truth, LoadedModel.load(checkpoints)::predict, 20_000, seed + 1);
            System.out.println(heldOut.table());
            System.out.println(String.format(Locale.ROOT,
                    "demo: trained %d examples at %.0f examples/s; learned AUC %.4f vs planted %.4f (gap %.4f); checkpoints in %s",
                    summary.records(), summary.examplesPerSecond(), heldOut.learnedAuc(), heldOut.plantedAuc(),
                    heldOut.plantedAuc() - heldOut.learnedAuc(), checkpoints.toAbsolutePath()));
            if (page != null) {
                page.stopFollowing(); // the broker stops with the demo; the page keeps the run it read
            }
        } catch (Exception e) {
            if (page != null) {
                page.close();
            }
            throw e;
        }
        if (page != null) {
            System.out.println("demo: the dashboard keeps showing the finished run at " + page.url() + " until Ctrl-C");
            page.awaitShutdown(System.err, Duration.ofSeconds(60));
            page.close();
        }
        return 0;
    }

    /** Writes the examples at about {@code rate} per second, in one-second chunks, so training runs alongside. */
    private void writeSteadily(IngestSettings settings, PlantedFm truth) {
        long written = 0;
        for (long chunk = 0; written < examples && !Thread.currentThread().isInterrupted(); chunk++) {
            long start = System.nanoTime();
            long n = Math.min(rate, examples - written);
            SyntheticIngest.ingestSynthetic(settings, truth, n, seed * 1_000_003L + chunk, System.currentTimeMillis());
            written += n;
            long sleep = 1000 - (System.nanoTime() - start) / 1_000_000;
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        System.err.println("demo: wrote " + written + " examples");
    }

    private static void clear(Path dir) throws Exception {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(dir);
    }
}
