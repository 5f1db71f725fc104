package io.streamtrain.cli;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.cluster.Signal;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.Ingestor;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.kafka.Topics;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.JobMonitor;
import io.streamtrain.train.run.KafkaProgress;
import io.streamtrain.train.run.Rescales;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * table of a given size in state. The job first trains through a warm-up that creates about
 * {@code --rows} rows, then works through a backlog while TaskManagers are added and killed.
 */
@Command(name = "elastic", mixinStandardHelpOptions = true,
        description = {"Times rescales and recoveries on a local reactive cluster (separate JVMs) with about --rows",
            "embedding rows in state: from a TaskManager started (or killed) to the job running at the new",
            "parallelism, and to its first checkpoint that commits new input; throughput before and after. Prints a table."})
public final class ElasticBenchCommand implements Callable<Integer> {
    private static final Duration STEP_TIMEOUT = Duration.ofMinutes(3);

    @Option(names = "--rows", defaultValue = "1000000", description = "Rows in state, about (default: ${DEFAULT-VALUE}).")
    int rows;

    @Option(names = "--fields", defaultValue = "10", description = "Features per example (default: ${DEFAULT-VALUE}).")
    int fields;

    @Option(names = "--dim", defaultValue = "16", description = "FM dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--measure", defaultValue = "20s", converter = DurationConverter.class, description = "Throughput window around each change (default: ${DEFAULT-VALUE}).")
    Duration measure;

    @Option(names = "--tm-memory", defaultValue = "1536m", description = "Process memory per TaskManager (default: ${DEFAULT-VALUE}).")
    String tmMemory;

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("streamtrain-bench-elastic");
        int vocabulary = Math.max(1, rows / fields);
        // Nearly uniform ids: three draws per id cover ~95% of the vocabulary, so the warm-up fills the table.
        PlantedFm data = new PlantedFm(3, fields, vocabulary, 0.01, 4);
        long warmUp = 3L * vocabulary;
        long backlog = warmUp + 3_000_000L;
        String topic = "elastic-bench";
        List<String> table = new ArrayList<>();
        table.add("| change | state MB (latest checkpoint) | to running at new parallelism s | to first new commit s | examples/s before | examples/s after |");
        table.add("|---|---|---|---|---|---|");
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"));
                KafkaProgress progress = new KafkaProgress(kafka.bootstrapServers())) {
            Topics.ensure(kafka.bootstrapServers(), Map.of(topic, 12));
            System.err.printf(Locale.ROOT, "bench: writing %,d examples (%,d warm-up over %,d ids per field)%n", backlog, warmUp, vocabulary);
            Ingestor.ingestSynthetic(IngestSettings.of(kafka.bootstrapServers(), topic), data, backlog, 5, System.currentTimeMillis());

            LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), 1, 1, MemorySize.parse(tmMemory), new Configuration());
            Path checkpoints = dir.resolve("checkpoints");
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
                Rescales.awaitRunningAt(rest, 1, STEP_TIMEOUT);
                System.err.printf(Locale.ROOT, "bench: warming up the table (%,d examples)...%n", warmUp);
                while (committed.total() < warmUp) {
                    failIfDone(training);
                    Thread.sleep(1000);
                }
                double rate = committed.rate(measure);
                cluster.addTaskManager();
                rate = change("TaskManager added, 1 -> 2", rest, 2, committed, rate, table);
                cluster.addTaskManager();
                rate = change("TaskManager added, 2 -> 3", rest, 3, committed, rate, table);
                cluster.killTaskManager(OptionalInt.empty(), Signal.KILL);
                rate = change("TaskManager killed (KILL), 3 -> 2", rest, 2, committed, rate, table);
                cluster.killTaskManager(OptionalInt.empty(), Signal.KILL);
                change("TaskManager killed (KILL), 2 -> 1", rest, 1, committed, rate, table);
            } finally {
                run.interrupt();
                run.join(120_000);
                cluster.stop(Duration.ofSeconds(10));
            }
            TrainingSummary summary = training.join();
            System.err.println(summary.line());
            long inState = LoadedModel.load(checkpoints).rows();
            System.out.printf(Locale.ROOT, "bench elastic: fm dim %d, %d features per example, %,d rows in state at the end, 1 slot per TaskManager, checkpoints every 1 s%n",
                    dim, fields, inState);
        }
        table.forEach(System.out::println);
        return 0;
    }

    /** Times one change already made; adds its row and returns the throughput after it. */
    private double change(String what, URI rest, int parallelism, Committed committed, double before, List<String> table) throws Exception {
        long start = System.nanoTime();
        long committedAtChange = committed.total();
        Duration running = Rescales.awaitRunningAt(rest, parallelism, STEP_TIMEOUT);
        while (committed.total() <= committedAtChange) {
            Thread.sleep(100);
        }
        double resumed = (System.nanoTime() - start) / 1e9;
        double stateMb = JobMonitor.runningJob(rest).orElseThrow().checkpoints().latestSizeBytes() / 1e6;
        double after = committed.rate(measure);
        String row = String.format(Locale.ROOT, "| %s | %.0f | %.1f | %.1f | %.0f | %.0f |",
                what, stateMb, running.toMillis() / 1e3, resumed, before, after);
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
        conf.set(TrainingOptions.MODEL, "fm");
        conf.set(PsOptions.DIM, dim);
        return conf;
    }

    private TrainingRun.Settings settings(String bootstrap, String topic, Path checkpoints) {
        return new TrainingRun.Settings(settingsConf(bootstrap, topic), checkpoints, 1, Duration.ofSeconds(1), null, false, System.err);
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
