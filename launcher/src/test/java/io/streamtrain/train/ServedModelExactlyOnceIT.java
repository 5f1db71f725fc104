package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.RowCodec;
import io.streamtrain.contract.RowVersion;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.serve.ModelFollower;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving side of invariant 1: a serving store following a job's model updates (published as
 * the PS applies them, versioned) while the job fails and recovers ends at exactly the job's final
 * checkpointed model, and meanwhile never shows an update a recovery takes back: with the count
 * optimizer a served row's weight is its count, which must never exceed the final model's count of
 * that row nor go down.
 */
class ServedModelExactlyOnceIT {
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void theFollowedModelEndsAtTheCheckpointedModelAndNeverShowsAnUpdateARecoveryDrops(@TempDir Path dir) throws Exception {
        String topic = "served-oracle-" + System.nanoTime();
        String updates = topic + ".updates";
        Path checkpoints = dir.resolve("checkpoints");
        kafka.createTopic(topic, 4);
        TestExamples examples = new TestExamples(17);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            // A first run gives the bundle that serving starts from.
            examples.produce(producer, topic, 1_000);
            TrainingRun.run(settings(topic, checkpoints, 0));
            Path bundle = dir.resolve("bundle");
            BundleWriter.write(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints), ModelCard.FeatureMapping.of("libffm", 24),
                    bundle, QUIET, 1_000_000);

            try (Bundle store = Bundle.openStore(bundle, dir.resolve("store"));
                    ModelFollower follower = new ModelFollower(kafka.connection(), updates, store)) {
                awaitTrue(follower::caughtUp, "the follower caught up with the first run's updates");
                examples.produce(producer, topic, 12_000);
                Map<Long, Long> finalCounts = new HashMap<>(examples.trueCounts);
                finalCounts.put(FeatureKey.BIAS, examples.good);
                try (Watcher watcher = new Watcher(store, finalCounts)) {
                    // The second run resumes from the first's checkpoint; its first attempt fails after 3,000 records.
                    TrainingSummary second = TrainingRun.run(settings(topic, checkpoints, 3_000));
                    System.err.println("second run: " + second.line());
                    assertTrue(second.restarts() >= 1, "the injected failure restarted the job: " + second.line());

                    List<ExportedRow> model = CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints));
                    examples.assertCountedExactlyOnce(model);
                    awaitTrue(() -> servesExactly(store, model), "the served model equals the final checkpoint's");
                    watcher.stop();
                    System.err.println("watched " + watcher.rounds.get() + " rounds; follower " + follower.status());
                    assertTrue(watcher.rounds.get() >= 20, "the served rows were watched throughout: " + watcher.rounds.get() + " rounds");
                    assertEquals(List.of(), watcher.violations, "a served row went above its final count or moved back");
                    assertTrue(republished(updates) > 0, "the recovery published again what it recomputed");
                }
                for (ExportedRow row : CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints))) {
                    long key = FeatureKey.of(row.field(), row.id());
                    assertArrayEquals(row.vector(), key == FeatureKey.BIAS ? store.bias() : store.rowOrNull(key),
                            "served row " + row.field() + ":" + row.id());
                }
            }
        }
    }

    /** Updates published more than once at the same (row, version): what the follower must drop. */
    private long republished(String updates) {
        Set<String> seen = new HashSet<>();
        return kafka.readAll(updates, false, Duration.ofSeconds(30)).stream()
                .filter(r -> !seen.add(RowCodec.rowKey(r.key()) + "@" + RowVersion.of(r.headers())))
                .count();
    }

    private static boolean servesExactly(Bundle store, List<ExportedRow> model) {
        for (ExportedRow row : model) {
            long key = FeatureKey.of(row.field(), row.id());
            if (!java.util.Arrays.equals(row.vector(), key == FeatureKey.BIAS ? store.bias() : store.rowOrNull(key))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads every row of the final model from the serving store, round after round, while the job
     * runs: a row's served count must never exceed its final count (an update the recovery dropped)
     * nor fall below what it showed before (a repeat or an older version applied).
     */
    private static final class Watcher implements AutoCloseable {
        final List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        final AtomicLong rounds = new AtomicLong();
        private final Bundle store;
        private final Map<Long, Long> finalCounts;
        private final Map<Long, Float> shown = new HashMap<>();
        private final Thread thread;
        private volatile boolean running = true;

        Watcher(Bundle store, Map<Long, Long> finalCounts) {
            this.store = store;
            this.finalCounts = finalCounts;
            this.thread = new Thread(this::run, "served-rows-watcher");
            thread.start();
        }

        private void run() {
            while (running && violations.size() < 20) {
                for (Map.Entry<Long, Long> e : finalCounts.entrySet()) {
                    long key = e.getKey();
                    float[] row = key == FeatureKey.BIAS ? store.bias() : store.rowOrNull(key);
                    float served = row == null ? 0 : row[0];
                    if (served > e.getValue()) {
                        violations.add("row " + key + " served count " + served + " above its final " + e.getValue());
                    }
                    Float before = shown.put(key, served);
                    if (before != null && served < before) {
                        violations.add("row " + key + " moved back from " + before + " to " + served);
                    }
                }
                rounds.incrementAndGet();
            }
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(30_000);
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }

    private TrainingRun.Settings settings(String topic, Path checkpoints, long failAfter) {
        Configuration conf = TestExamples.connect(new Configuration(), kafka);
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, ModelKind.FM);
        conf.set(TrainingOptions.BATCH_SIZE, 64);
        conf.set(TrainingOptions.MAX_WAIT, Duration.ofMillis(200));
        conf.set(TrainingOptions.INJECT_FAILURE_AFTER, failAfter);
        conf.set(TrainingOptions.MODEL_UPDATES_TOPIC, topic + ".updates");
        conf.set(PsOptions.DIM, 4);
        conf.set(PsOptions.OPTIMIZER, OptimizerKind.COUNT);
        return new TrainingRun.Settings(conf, checkpoints, 2, Duration.ofMillis(500), Duration.ofSeconds(4), true, System.err);
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not " + what + " within 60 s");
            }
            Thread.sleep(50);
        }
    }
}
