package io.streamtrain.cli;

import io.streamtrain.config.SettingsCheck;
import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.bench.SeedTable;
import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.cluster.Signal;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.kafka.Topics;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.JobMonitor;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.run.Rescales;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench elastic}: rescale and recovery on a local reactive cluster with a
 * table of a given size in state. The table is seeded into a savepoint first ({@link SeedTable}),
 * laid out as a checkpoint of the run so that training resumes from it; the job then works
 * through a backlog while TaskManagers are added and killed.
 */
@Command(name = "elastic", mixinStandardHelpOptions = true,
        description = "Times rescales and recoveries on a local reactive cluster (separate JVMs) with --rows "
                + "embedding rows in state: from a TaskManager started (or killed) to the job running at the new "
                + "parallelism, and to its first checkpoint that commits new input; throughput before and after. Prints a table.")
public final class ElasticBenchCommand implements Callable<Integer> {
    private static final Duration STEP_TIMEOUT = Duration.ofMinutes(5);

    @Option(names = "--rows", defaultValue = "1000000", description = "Rows in state: --fields x ids per field (default: ${DEFAULT-VALUE}).")
    long rows;

    @Option(names = "--examples", defaultValue = "2000000", description = "Backlog the job trains through while it is rescaled (default: ${DEFAULT-VALUE}).")
    long examples;

    @Option(names = "--zipf", defaultValue = "1.1", description = "Zipf exponent of the ids the examples use (default: ${DEFAULT-VALUE}).")
    double zipf;

    @Option(names = "--fields", defaultValue = "10", description = "Features per example (default: ${DEFAULT-VALUE}).")
    int fields;

    @Option(names = "--dim", defaultValue = "16", description = "FM dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--measure", defaultValue = "20s", converter = DurationConverter.class, description = "Throughput window around each change (default: ${DEFAULT-VALUE}).")
    Duration measure;

    @Option(names = "-D", paramLabel = "KEY=VALUE",
            description = "Any Flink or streamtrain configuration key for the cluster and its job, e.g. RocksDB restore options.")
    Map<String, String> extra = new LinkedHashMap<>();

    @Option(names = "--tm-memory", defaultValue = "1536m", description = "Process memory per TaskManager (default: ${DEFAULT-VALUE}).")
    String tmMemory;

    @Override
    public Integer call() throws Exception {
        try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-bench-elastic")) {
            return run(scratch.path());
        }
    }

    private Integer run(Path dir) throws Exception {
        int idsPerField = (int) Math.max(1, rows / fields);
        PlantedFm data = new PlantedFm(3, fields, idsPerField, zipf, 4);
        String topic = "elastic-bench";
        Path checkpoints = dir.resolve("checkpoints");
        Configuration trainConf = settingsConf("unused", topic);
        long seedStart = System.nanoTime();
        long seeded = SeedTable.write(checkpoints.resolve("seed").resolve("chk-0"), fields, idsPerField,
                RowInitializer.from(trainConf, trainConf.get(TrainingOptions.MODEL)),
                OptimizerConfig.from(trainConf), KeyGroups.DEFAULT_MAX_PARALLELISM, 2);
        System.err.printf(Locale.ROOT, "bench: seeded %,d rows in %.1f s%n", seeded, (System.nanoTime() - seedStart) / 1e9);
        List<String> table = new ArrayList<>();
        table.add("| change | state MB (latest checkpoint) | TaskManager JVM start to joined s | joined/killed to running at new parallelism s | to first new commit s | examples/s before | examples/s after |");
        table.add("|---|---|---|---|---|---|---|");
        SettingsCheck.check(extra).orThrow().warnings().forEach(w -> System.err.println("warning: " + w));
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"));
                KafkaProgress progress = new KafkaProgress(kafka.connection())) {
            Topics.ensure(kafka.connection(), Map.of(topic, 12));
            System.err.printf(Locale.ROOT, "bench: writing %,d examples (Zipf %.2f over %,d ids per field)%n", examples, zipf, idsPerField);
            SyntheticIngest.ingestSynthetic(IngestSettings.of(kafka.connection(), topic), data, examples, 5, System.currentTimeMillis());

            LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), 1, 1, MemorySize.parse(tmMemory), Configuration.fromMap(extra));
            Committed committed = new Committed(progress, topic + "-examples", topic);
            CompletableFuture<TrainingSummary> training = new CompletableFuture<>();
            Thread run = new Thread(() -> {
                try {
                    training.complete(TrainingRun.run(settings(kafka.bootstrapServers(), topic, checkpoints).onCluster(cluster.layout().root())));
                } catch (Throwable t) {
                    training.completeExceptionally(t);
                }
            }, "training-run");
            try {
                run.start();
                URI rest = cluster.restAddress();
                Duration restored = Rescales.awaitRunningAt(rest, 1, STEP_TIMEOUT);
                System.err.printf(Locale.ROOT, "bench: job running from the seeded table after %.1f s%n", restored.toMillis() / 1e3);
                while (committed.total() == 0) {
                    failIfDone(training);
                    Thread.sleep(500);
                }
                double rate = committed.rate(measure);
                rate = change("TaskManager added, 1 -> 2", rest, 2, committed, rate, table, addAndAwaitJoin(cluster, rest, 2));
                rate = change("TaskManager added, 2 -> 3", rest, 3, committed, rate, table, addAndAwaitJoin(cluster, rest, 3));
                cluster.killTaskManager(OptionalInt.empty(), Signal.KILL);
                rate = change("TaskManager killed (KILL), 3 -> 2", rest, 2, committed, rate, table, Double.NaN);
                cluster.killTaskManager(OptionalInt.empty(), Signal.KILL);
                change("TaskManager killed (KILL), 2 -> 1", rest, 1, committed, rate, table, Double.NaN);
            } finally {
                run.interrupt();
                run.join(120_000);
                cluster.stop(Duration.ofSeconds(10));
            }
            TrainingSummary summary = training.join();
            System.err.println(summary.line());
            long inState = CheckpointRows.read(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints), row -> { });
            System.out.printf(Locale.ROOT, "bench elastic: fm dim %d, %d features per example, %,d rows in state at the end, 1 slot per TaskManager, checkpoints every 1 s%n",
                    dim, fields, inState);
        }
        table.forEach(System.out::println);
        return 0;
    }

    /**
     * Starts a TaskManager and waits until it has registered with the JobManager ("joined"), the
     * moment from which reactive mode can use it; returns the seconds its JVM took to get there.
     */
    private static double addAndAwaitJoin(LocalCluster cluster, URI rest, int taskManagers) throws Exception {
        long start = System.nanoTime();
        cluster.addTaskManager();
        long deadline = start + STEP_TIMEOUT.toNanos();
        while (JobMonitor.clusterOverview(rest).getNumTaskManagersConnected() < taskManagers) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the new TaskManager did not register within " + STEP_TIMEOUT);
            }
            Thread.sleep(50);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Times one change already made (a TaskManager joined or killed); adds its row and returns the throughput after it. */
    private double change(String what, URI rest, int parallelism, Committed committed, double before, List<String> table,
                          double jvmToJoined) throws Exception {
        long start = System.nanoTime();
        long committedAtChange = committed.total();
        Duration running = Rescales.awaitRunningAt(rest, parallelism, STEP_TIMEOUT);
        while (committed.total() <= committedAtChange) {
            Thread.sleep(100);
        }
        double resumed = (System.nanoTime() - start) / 1e9;
        double stateMb;
        try (JobMonitor job = JobMonitor.runningJob(rest).orElseThrow()) {
            stateMb = job.checkpoints().latestSizeBytes() / 1e6;
        }
        double after = committed.rate(measure);
        String row = String.format(Locale.ROOT, "| %s | %.0f | %s | %.1f | %.1f | %.0f | %.0f |",
                what, stateMb, Double.isNaN(jvmToJoined) ? "-" : String.format(Locale.ROOT, "%.1f", jvmToJoined),
                running.toMillis() / 1e3, resumed, before, after);
        System.err.println("bench: " + row);
        table.add(row);
        return after;
    }

    private static void failIfDone(CompletableFuture<TrainingSummary> training) {
        if (training.isDone()) {
            training.join();
            throw new IllegalStateException("the training run ended early");
        }
    }

    private Configuration settingsConf(String bootstrap, String topic) {
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, bootstrap);
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, ModelKind.FM);
        conf.set(PsOptions.DIM, dim);
        return conf;
    }

    private TrainingRun.Settings settings(String bootstrap, String topic, Path checkpoints) {
        return new TrainingRun.Settings(settingsConf(bootstrap, topic), checkpoints, 1, Duration.ofSeconds(1), null, true, System.err);
    }

    /** The examples the job has committed (trained and checkpointed), from its consumer group. */
    private record Committed(KafkaProgress kafka, String group, String topic) {
        long total() throws Exception {
            long sum = 0;
            for (Map.Entry<TopicPartition, Long> e : kafka.committed(group, topic).entrySet()) {
                sum += e.getValue();
            }
            return sum;
        }

        /** Committed examples/s over {@code window}. */
        double rate(Duration window) throws Exception {
            long from = total();
            long start = System.nanoTime();
            Thread.sleep(window.toMillis());
            return (total() - from) / ((System.nanoTime() - start) / 1e9);
        }
    }
}
