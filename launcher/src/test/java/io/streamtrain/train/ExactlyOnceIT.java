package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.contract.RowVersion;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Invariant 1: with the count optimizer, after injected task failures, a stop, a resume from the
 * retained checkpoint and idle gaps in the input, every row's count equals the number of input
 * records containing its feature — no more, no less; a deep model's every dense parameter equals
 * the number of records; and the published model updates end at exactly the model.
 */
class ExactlyOnceIT {
    final KafkaFixture kafka = kafka();

    /** The broker this test runs against; a subclass runs it against another one (e.g. {@link KafkaFixture#secured()}). */
    KafkaFixture kafka() {
        return KafkaFixture.shared();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ModelKind.class, names = {"FM", "DEEPFM"})
    void everyRecordIsCountedExactlyOnceAcrossFailuresResumeAndIdleGaps(ModelKind model, @TempDir Path checkpoints) throws Exception {
        String topic = "oracle-" + model + "-" + System.nanoTime();
        kafka.createTopic(topic, 4);
        TestExamples examples = new TestExamples(42);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 12_000);
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, ("not avro " + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();

            TrainingSummary first = TrainingRun.run(settings(model, topic, checkpoints, 3_000));
            System.err.println("first run: " + first.line());
            assertTrue(first.restarts() >= 1, "the injected failure restarted the job: " + first.line());
            assertEquals(12_003, first.records(), first.line());

            // Second run resumes from the retained checkpoint while input arrives in bursts with idle gaps.
            Thread bursts = new Thread(() -> {
                for (int burst = 0; burst < 3; burst++) {
                    examples.produce(producer, topic, 2_000);
                    sleep(1_500);
                }
            });
            bursts.start();
            TrainingSummary second = TrainingRun.run(settings(model, topic, checkpoints, 1_000));
            bursts.join();
            System.err.println("second run: " + second.line());
            assertTrue(second.restarts() >= 1, second.line());
        }

        ModelInfo info = ModelInfo.read(checkpoints);
        List<ExportedRow> rows = CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), info);
        System.err.println("exported " + rows.size() + " rows from " + LatestCheckpoint.in(checkpoints));
        examples.assertCountedExactlyOnce(rows, DenseChunks.count(info.shape().denseLayout().size()));
        assertModelUpdatesEndAtTheModel(topic + ".updates", rows);

        List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(topic + ".dlq", true, Duration.ofSeconds(10));
        assertEquals(3, dead.size(), "each non-Avro record dead-lettered once");
        AvroCodec<DeadLetter> codec = AvroCodec.of(DeadLetter.class);
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            assertEquals("not-avro", codec.decode(r.value()).getReason());
        }
    }

    /**
     * A failure right after idle cuts that only the cut log holds (decisions/0018): input in bursts
     * with idle gaps, checkpoints far apart, and each batcher's first attempt failing a few bursts
     * in, before the first checkpoint. The restart replays everything, with records ahead of each
     * idle cut, and must cut where the failed attempt's pushes were cut (without reading the cut
     * log it does not, and the count is off).
     */
    @Test
    void everyRecordIsCountedExactlyOnceWhenAFailureFollowsIdleCutsNoCheckpointHolds(@TempDir Path checkpoints) throws Exception {
        String topic = "oracle-idle-cuts-" + System.nanoTime();
        kafka.createTopic(topic, 4);
        TestExamples examples = new TestExamples(7);
        // One record time for all: no batch closes by record time, so a replay that ignored the cut
        // log would cut by size where the failed attempt cut idle batches.
        long recordTime = System.currentTimeMillis();
        TrainingSummary run;
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            Thread bursts = new Thread(() -> {
                for (int burst = 0; burst < 6; burst++) {
                    examples.produce(producer, topic, 200, recordTime);
                    sleep(4_000); // the job catches up and cuts its partitions idle
                }
            });
            bursts.start();
            TrainingRun.Settings settings = settings(ModelKind.FM, topic, checkpoints, 350);
            run = TrainingRun.run(new TrainingRun.Settings(settings.conf(), checkpoints, settings.parallelism(),
                    Duration.ofSeconds(40), Duration.ofSeconds(6), true, System.err));
            bursts.join();
        }
        System.err.println("run: " + run.line());
        assertTrue(run.restarts() >= 1, "the injected failure restarted the job: " + run.line());
        assertEquals(1_200, run.records(), run.line());
        assertTrue(!kafka.readAll(topic + ".feedback.cuts", false, Duration.ofSeconds(5)).isEmpty(), "idle cuts went through the cut log");
        ModelInfo info = ModelInfo.read(checkpoints);
        examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), info));
    }

    /**
     * The model updates, each row's highest version (as a follower keeps them), are the model
     * itself: every row of the final checkpoint with its exact weights, and no row the model does
     * not have. Failures and the resume in between must neither lose an update nor publish one a
     * recovery computes differently: every (row, version) published more than once has one value.
     */
    private void assertModelUpdatesEndAtTheModel(String updatesTopic, List<ExportedRow> rows) {
        Map<Long, byte[]> latest = new HashMap<>();
        Map<Long, Long> versions = new HashMap<>();
        Map<String, byte[]> byVersion = new HashMap<>();
        // read_committed: versioned updates are not transactional and visible at once; checkpoint-bound ones (a row TTL)
        // are unversioned and count only once committed, in commit order
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(updatesTopic, true, Duration.ofSeconds(30))) {
            long key = RowCodec.rowKey(r.key());
            long version = RowVersion.of(r.headers());
            byte[] same = version == RowVersion.NONE ? null : byVersion.putIfAbsent(key + "@" + version, r.value());
            assertTrue(same == null || java.util.Arrays.equals(same, r.value()), "row " + key + " at version " + version + " published with two values");
            if (RowVersion.supersedes(version, versions.getOrDefault(key, RowVersion.NONE))) {
                latest.put(key, r.value());
                versions.put(key, version);
            }
        }
        assertEquals(rows.size(), latest.size(), "rows with a published update");
        for (ExportedRow row : rows) {
            byte[] published = latest.get(FeatureKey.of(row.field(), row.id()));
            assertTrue(published != null, "no update published for row " + row.field() + ":" + row.id());
            assertArrayEquals(row.vector(), RowCodec.weights(published, row.vector().length),
                    "row " + row.field() + ":" + row.id() + ": latest update equals the model's row");
        }
    }

    private TrainingRun.Settings settings(ModelKind model, String topic, Path checkpoints, long failAfter) {
        Configuration conf = TestExamples.connect(new Configuration(), kafka);
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, model);
        // The examples' 4 fields feed a tower of 13 dense chunks, spread over both PS subtasks.
        conf.set(TrainingOptions.FIELDS, 4);
        conf.set(TrainingOptions.HIDDEN, List.of(64, 32));
        conf.set(TrainingOptions.BATCH_SIZE, 64);
        conf.set(TrainingOptions.MAX_WAIT, Duration.ofMillis(200));
        conf.set(TrainingOptions.INJECT_FAILURE_AFTER, failAfter);
        conf.set(TrainingOptions.MODEL_UPDATES_TOPIC, topic + ".updates");
        conf.set(PsOptions.DIM, 4);
        conf.set(PsOptions.OPTIMIZER, OptimizerKind.COUNT);
        // Far fewer than the ~1,200 rows: rows leave the PS's row cache all the time, new rows a
        // pull drew among them (the push then draws them again), and no count may depend on it.
        conf.set(PsOptions.ROW_CACHE_ROWS, 100);
        return new TrainingRun.Settings(conf, checkpoints, 2, Duration.ofMillis(500), Duration.ofSeconds(4), true, System.err);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
