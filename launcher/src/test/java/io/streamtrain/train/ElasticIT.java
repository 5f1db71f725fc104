package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.cluster.Signal;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.JobMonitor;
import io.streamtrain.train.run.Rescales;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Invariants 1 and 3 on real processes: a local reactive cluster (one JobManager JVM, TaskManager
 * JVMs) trains while input keeps arriving; TaskManagers are added (1→2→3), stopped, and killed with
 * SIGKILL, and then the JobManager itself is killed and replaced from the latest checkpoint. The
 * job's parallelism must follow the TaskManagers, and every row's count must equal the number of
 * input records containing its feature (for deepfm, every dense parameter the number of records).
 */
@Tag("alone") // measures learning or timing that a second test JVM on two cores would disturb
class ElasticIT {
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(90);
    private final KafkaFixture kafka = KafkaFixture.shared();

    /**
     * Input arrives in bursts every 250 ms with a 200 ms max wait, so partitions go idle between
     * bursts and the batcher also cuts on its idle timer: a replay after each change must cut the
     * same batches as the run it replaces (before PartitionTail, 5 of 6 runs counted 64-128
     * records twice).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ModelKind.class, names = {"FM", "DEEPFM"})
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void parallelismFollowsTaskManagersAndEveryRecordCountsOnceAcrossRescalesAndKills(
            ModelKind model, @TempDir Path clusterDir, @TempDir Path checkpoints) throws Exception {
        String topic = "elastic-" + model + "-" + System.nanoTime();
        kafka.createTopic(topic, 4);
        TestExamples examples = new TestExamples(7);
        LocalCluster cluster = LocalCluster.start(clusterDir, 1, 1, MemorySize.parse("1g"), new Configuration());
        AtomicBoolean producing = new AtomicBoolean(true);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 3_000);
            CompletableFuture<Void> input = CompletableFuture.runAsync(() -> {
                while (producing.get()) {
                    examples.produce(producer, topic, 300);
                    sleep(250);
                }
            });
            CompletableFuture<TrainingSummary> training = CompletableFuture.supplyAsync(() -> {
                try {
                    return TrainingRun.run(settings(model, topic, checkpoints).onCluster(clusterDir));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            URI rest = cluster.restAddress();
            step("start", awaitRunningAt(rest, 1, training));
            assertRocksDbMappedFromClusterLib(cluster);
            long restoredBefore = restoredCheckpointId(rest);
            cluster.addTaskManager();
            step("taskmanager added, 1 -> 2", awaitRunningAt(rest, 2, training));
            long restored = restoredCheckpointId(rest);
            assertTrue(restored > restoredBefore, "the rescale restored from a newer checkpoint (" + restored + " > " + restoredBefore + ")");
            cluster.addTaskManager();
            step("taskmanager added, 2 -> 3", awaitRunningAt(rest, 3, training));
            cluster.killTaskManager(OptionalInt.empty(), Signal.TERM);
            step("taskmanager stopped (TERM), 3 -> 2", awaitRunningAt(rest, 2, training));
            cluster.killTaskManager(OptionalInt.empty(), Signal.KILL);
            step("taskmanager killed (KILL), 2 -> 1", awaitRunningAt(rest, 1, training));
            cluster.addTaskManager();
            step("taskmanager added, 1 -> 2", awaitRunningAt(rest, 2, training));
            JobID before = runningJob(rest);
            Signal.KILL.send(cluster.jobManager().orElseThrow());
            step("jobmanager killed and replaced from the latest checkpoint", awaitRunningAt(rest, 2, training));
            JobID after = runningJob(rest);
            assertTrue(!after.equals(before), "a new JobManager runs the job under a new id");

            producing.set(false);
            input.get(30, TimeUnit.SECONDS);
            TrainingSummary summary = training.get(3, TimeUnit.MINUTES);
            System.err.println("elastic run: " + summary.line());
            assertEquals(examples.good, summary.records(), "every produced record was trained and committed");
        } finally {
            producing.set(false);
            cluster.stop(Duration.ofSeconds(10));
        }

        ModelInfo info = ModelInfo.read(checkpoints);
        examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), info),
                DenseChunks.count(info.shape().denseLayout().size()));
        assertTrue(cluster.members().stream().noneMatch(LocalCluster.Member::alive), "no cluster process outlives the test");
    }

    private TrainingRun.Settings settings(ModelKind model, String topic, Path checkpoints) {
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, model);
        conf.set(TrainingOptions.FIELDS, 4); // the examples' fields: a tower of 13 dense chunks
        conf.set(TrainingOptions.HIDDEN, List.of(64, 32));
        conf.set(TrainingOptions.BATCH_SIZE, 64);
        conf.set(TrainingOptions.MAX_WAIT, Duration.ofMillis(200));
        conf.set(PsOptions.DIM, 4);
        conf.set(PsOptions.OPTIMIZER, OptimizerKind.COUNT);
        return new TrainingRun.Settings(conf, checkpoints, 1, Duration.ofSeconds(1), Duration.ofSeconds(6), true, System.err);
    }

    private static void step(String what, long millis) {
        System.err.printf("elastic: %s: running at the new parallelism after %d ms%n", what, millis);
    }

    /** Milliseconds until the cluster's job runs every task at {@code parallelism}; fails if the run ends first. */
    private static long awaitRunningAt(URI rest, int parallelism, CompletableFuture<?> training) throws Exception {
        CompletableFuture<Duration> running = CompletableFuture.supplyAsync(() -> {
            try {
                return Rescales.awaitRunningAt(rest, parallelism, STEP_TIMEOUT);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        CompletableFuture.anyOf(running, training).get();
        if (!running.isDone()) {
            training.get(); // surfaces the run's failure
            throw new IllegalStateException("the training run ended early");
        }
        return running.get().toMillis();
    }

    /** The running TaskManager loaded RocksDB's JNI library from the cluster's lib directory, not from a copy it unpacked. */
    private static void assertRocksDbMappedFromClusterLib(LocalCluster cluster) throws Exception {
        Path maps = Path.of("/proc", Long.toString(cluster.members().get(1).pid()), "maps");
        assumeTrue(Files.isReadable(maps), "no /proc here");
        String libDir = cluster.layout().libDir().toString();
        List<String> rocksDb = Files.readAllLines(maps).stream().filter(l -> l.contains("librocksdbjni")).toList();
        assertTrue(!rocksDb.isEmpty() && rocksDb.stream().allMatch(l -> l.contains(libDir)),
                "RocksDB mapped from " + libDir + ": " + rocksDb);
    }

    private static long restoredCheckpointId(URI rest) throws Exception {
        try (JobMonitor job = JobMonitor.runningJob(rest).orElseThrow()) {
            return job.restoredCheckpointId();
        }
    }

    private static JobID runningJob(URI rest) throws Exception {
        try (JobMonitor job = JobMonitor.runningJob(rest).orElseThrow()) {
            return job.job();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
