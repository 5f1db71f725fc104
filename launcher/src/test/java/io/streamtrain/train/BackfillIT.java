package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.BackfillRange;
import io.streamtrain.train.run.BackfillRun;
import io.streamtrain.train.run.Handover;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backfill: a bounded range through the same pipeline, a savepoint at its end, a second backfill
 * and then streaming training continuing from it. The count oracle of {@link ExactlyOnceIT} checks
 * every step.
 */
class BackfillIT {
    final KafkaFixture kafka = kafka();

    /** The broker this test runs against; a subclass runs it against another one (e.g. {@link KafkaFixture#secured()}). */
    KafkaFixture kafka() {
        return KafkaFixture.shared();
    }

    @Test
    void streamingContinuesFromTheBackfillWithoutGapOrOverlap(@TempDir Path dir) throws Exception {
        String topic = "backfill-" + System.nanoTime();
        kafka.createTopic(topic, 4);
        TestExamples examples = new TestExamples(7);
        Map<Long, Long> truthAtCut;
        long goodAtCut;
        Map<Integer, Long> cut;
        Map<Integer, Long> secondCut;
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer();
                KafkaProgress progress = new KafkaProgress(kafka.connection())) {
            examples.produce(producer, topic, 6_000);
            sendBad(producer, topic, 2);
            truthAtCut = new HashMap<>(examples.trueCounts);
            goodAtCut = examples.good;
            cut = byPartition(progress.endOffsets(topic));
            // History goes on beyond each backfill's range: a backfill must stop at its cut.
            examples.produce(producer, topic, 3_000);
            sendBad(producer, topic, 1);
            secondCut = byPartition(progress.endOffsets(topic));
            examples.produce(producer, topic, 4_000);
            sendBad(producer, topic, 1);
        }

        Path first = dir.resolve("backfill");
        TrainingSummary backfill = BackfillRun.run(new BackfillRun.Settings(
                settings(topic, dir.resolve("unused"), null), BackfillRange.Bound.ofTime("earliest"), BackfillRange.Bound.ofOffsets(cut), null, first));
        System.err.println("backfill: " + backfill.line());
        assertEquals(6_002, backfill.records(), "the backfill read exactly its range: " + backfill.line());
        assertEquals(2, backfill.deadLetters(), "bad records in history are dead-lettered as in streaming: " + backfill.line());
        assertEquals(cut, Handover.find(first).orElseThrow().offsets(), "the hand-over is the range's end");
        TestExamples.assertCountedExactlyOnce(rows(first), goodAtCut, truthAtCut);

        // A second backfill continues the first one's model where its range ended (no --from).
        Path second = dir.resolve("backfill-2");
        TrainingSummary continued = BackfillRun.run(new BackfillRun.Settings(
                settings(topic, dir.resolve("unused-2"), null), null, BackfillRange.Bound.ofOffsets(secondCut), first, second));
        System.err.println("continued backfill: " + continued.line());
        assertEquals(3_001, continued.records(), "the continued backfill read exactly the next range: " + continued.line());
        assertEquals(secondCut, Handover.find(second).orElseThrow().offsets());

        Path checkpoints = dir.resolve("streaming");
        TrainingSummary streaming = TrainingRun.run(settings(topic, checkpoints, Duration.ofSeconds(4)).fromSavepoint(second));
        System.err.println("streaming: " + streaming.line());
        assertEquals(4_001, streaming.records(), "streaming started exactly at the hand-over: " + streaming.line());
        examples.assertCountedExactlyOnce(rows(checkpoints));

        List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(topic + ".dlq", true, Duration.ofSeconds(10));
        assertEquals(4, dead.size(), "each bad record dead-lettered once across two backfills and streaming");
        AvroCodec<DeadLetter> codec = AvroCodec.of(DeadLetter.class);
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            assertEquals("not-avro", codec.decode(r.value()).getReason());
        }
    }

    @Test
    void theSameRangeSeedAndParallelismGiveBitIdenticalRows(@TempDir Path dir) throws Exception {
        String topic = "backfill-det-" + System.nanoTime();
        kafka.createTopic(topic, 4);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            new TestExamples(11).produce(producer, topic, 5_000);
        }
        List<ExportedRow> first = backfillRows(topic, "first", dir);
        List<ExportedRow> second = backfillRows(topic, "second", dir);
        assertTrue(first.size() > 100, "rows were trained: " + first.size());
        assertEquals(first.size(), second.size(), "same rows");
        for (int i = 0; i < first.size(); i++) {
            ExportedRow a = first.get(i);
            ExportedRow b = second.get(i);
            assertEquals(a.field(), b.field());
            assertEquals(a.id(), b.id());
            assertEquals(a.count(), b.count(), "count of " + a.field() + ":" + a.id());
            // updatedAt is wall-clock time of the last update, not a model parameter: not compared.
            assertArrayEquals(bits(a.vector()), bits(b.vector()), "weights of " + a.field() + ":" + a.id() + ", bit for bit");
        }
    }

    private List<ExportedRow> backfillRows(String topic, String name, Path dir) throws Exception {
        Path out = dir.resolve(name);
        TrainingRun.Settings s = settings(topic, dir.resolve("unused"), null);
        s.conf().set(TrainingOptions.NAME, topic + "-" + name);
        BackfillRun.run(new BackfillRun.Settings(s, BackfillRange.Bound.ofTime("earliest"), BackfillRange.Bound.ofTime("latest"), null, out));
        List<ExportedRow> rows = new java.util.ArrayList<>(rows(out));
        rows.sort(Comparator.comparingInt(ExportedRow::field).thenComparingLong(ExportedRow::id));
        return rows;
    }

    private static List<ExportedRow> rows(Path dir) throws Exception {
        return CheckpointRows.readAll(LatestCheckpoint.in(dir), ModelInfo.read(dir));
    }

    private static int[] bits(float[] v) {
        int[] b = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = Float.floatToRawIntBits(v[i]);
        }
        return b;
    }

    private static void sendBad(KafkaProducer<byte[], byte[]> producer, String topic, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            producer.send(new ProducerRecord<>(topic, ("not avro " + i).getBytes(StandardCharsets.UTF_8))).get();
        }
    }

    private static Map<Integer, Long> byPartition(Map<org.apache.kafka.common.TopicPartition, Long> offsets) {
        Map<Integer, Long> result = new HashMap<>();
        offsets.forEach((tp, o) -> result.put(tp.partition(), o));
        return result;
    }

    private TrainingRun.Settings settings(String topic, Path checkpoints, Duration untilIdle) {
        Configuration conf = TestExamples.fmOracleJob(kafka, topic);
        return new TrainingRun.Settings(conf, checkpoints, 2, Duration.ofMillis(500), untilIdle, true, System.err);
    }
}
