package io.streamtrain.train.batch;

import io.streamtrain.kafka.KafkaConnection;
import static io.streamtrain.train.batch.BatcherHarness.KEY_GROUPS;
import static io.streamtrain.train.batch.BatcherHarness.MAX_PARALLELISM;
import static io.streamtrain.train.batch.BatcherHarness.cuts;
import static io.streamtrain.train.batch.BatcherHarness.pulls;
import static io.streamtrain.train.batch.BatcherHarness.runMail;
import static io.streamtrain.train.batch.BatcherHarness.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TrainingOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The batcher alone, through Flink's operator test harness: cuts by count and by record time, the
 * same cuts after a restore, the seal protocol, and snapshots restored at another parallelism.
 * Processing time is the harness's; the seal's drain check and the cut log use a real broker.
 */
class MiniBatcherHarnessIT {
    private static final long MAX_WAIT_MS = 1000;

    private final KafkaFixture kafka = KafkaFixture.shared();
    /** The examples topic as the seal's drain check sees it: empty unless a test writes to it. */
    private final String topic = topic("examples");
    /** The cuts topic, empty when the job (each test) is built: a fresh job reads it from offset 0. */
    private final String cutsTopic = topic("cuts");
    private final CutLog cutLog;

    MiniBatcherHarnessIT() {
        kafka.createTopic(topic, 2);
        kafka.createTopic(cutsTopic, 2);
        cutLog = CutLog.on(kafka.connection(), cutsTopic, Map.of(0, 0L, 1, 0L));
    }

    @Test
    void aBatchClosesWhenItReachesTheBatchSize() throws Exception {
        try (var batcher = batcher(3, 1, 0, null, 0)) {
            feed(batcher, 0, 0, 7, 0);
            assertEquals(List.of("0#0:0-2", "0#1:3-5"), cuts(batcher));
            List<PullRequest> pulls = pulls(batcher);
            assertTrue(pulls.stream().allMatch(p -> p.sourcePartition == 0), pulls.toString());
            assertEquals(List.of(0L, 1L), pulls.stream().map(p -> p.batchSeq).distinct().toList(),
                    "each batch sends its pulls, one per key group of its rows");
            assertEquals(batcher.extractOutputValues().stream().mapToInt(b -> b.pulls).sum(), pulls.size());
        }
    }

    @Test
    void aBatchClosesBeforeARecordMoreThanMaxWaitAfterItsFirstByRecordTime() throws Exception {
        try (var batcher = batcher(100, 1, 0, null, 0)) {
            batcher.processElement(record(0, 0, 10_000), 0);
            batcher.processElement(record(0, 1, 10_000 + MAX_WAIT_MS), 0); // not more than max-wait: joins
            batcher.processElement(record(0, 2, 10_001 + MAX_WAIT_MS), 0);
            batcher.processElement(record(0, 3, 10_001 + MAX_WAIT_MS), 0);
            assertEquals(List.of("0#0:0-1"), cuts(batcher), "record time, not processing time, closes a batch");
        }
    }

    @Test
    void aReplayFromASnapshotCutsTheSameBatches() throws Exception {
        List<String> afterSnapshot;
        OperatorSubtaskState snapshot;
        try (var batcher = batcher(4, 1, 0, null, 0)) {
            feed(batcher, 0, 0, 6, 0);
            feed(batcher, 1, 0, 3, 0);
            snapshot = snapshot(batcher, 1);
            assertEquals(List.of("0#0:0-3"), cuts(batcher));
            batcher.getOutput().clear();
            feed(batcher, 0, 6, 11, 0);
            feed(batcher, 1, 3, 9, 0);
            afterSnapshot = cuts(batcher);
        }
        assertEquals(List.of("0#1:4-7", "1#0:0-3", "1#1:4-7"), afterSnapshot);
        try (var batcher = batcher(4, 1, 0, snapshot, 1)) {
            // The restarted source delivers from the checkpointed offsets, after a record the failed run had taken.
            batcher.processElement(record(0, 5, 0), 0);
            feed(batcher, 0, 6, 11, 0);
            feed(batcher, 1, 3, 9, 0);
            assertEquals(afterSnapshot, cuts(batcher));
        }
    }

    @Test
    void anIdleBatchIsSealedAndGoesOutOnlyOnceACheckpointAfterTheSealHasCompleted() throws Exception {
        try (var batcher = batcher(100, 1, 0, null, 0)) {
            feed(batcher, 0, 0, 3, 0);
            batcher.setProcessingTime(MAX_WAIT_MS); // idle for max-wait, and Kafka holds nothing after offset 2: sealed
            batcher.setProcessingTime(5 * MAX_WAIT_MS);
            assertEquals(List.of(), cuts(batcher), "the seal is not durable yet");

            snapshot(batcher, 1);
            batcher.processElement(record(0, 3, 0), 0); // held behind the seal, which checkpoint 1 holds
            batcher.setProcessingTime(6 * MAX_WAIT_MS);
            assertEquals(List.of(), cuts(batcher), "checkpoint 1 holds the seal but has not completed");
            batcher.notifyOfCompletedCheckpoint(1);
            batcher.setProcessingTime(7 * MAX_WAIT_MS);
            assertEquals(List.of("0#0:0-2"), cuts(batcher));

            batcher.processElement(record(0, 4, 0), 0);
            batcher.setProcessingTime(8 * MAX_WAIT_MS); // the held record joined the next batch, now idle: sealed
            snapshot(batcher, 2);
            batcher.notifyOfCompletedCheckpoint(2);
            batcher.setProcessingTime(9 * MAX_WAIT_MS);
            assertEquals(List.of("0#0:0-2", "0#1:3-4"), cuts(batcher));
        }
    }

    @Test
    void aSealNoSnapshotHasStartedSinceIsWithdrawnByTheNextRecord() throws Exception {
        OperatorSubtaskState snapshot;
        try (var batcher = batcher(100, 1, 0, null, 0)) {
            feed(batcher, 0, 0, 3, 0);
            batcher.setProcessingTime(MAX_WAIT_MS); // sealed
            batcher.processElement(record(0, 3, MAX_WAIT_MS / 2), 0); // within max-wait by record time: joins the batch
            batcher.processElement(record(0, 4, 2 * MAX_WAIT_MS), 0); // too late by record time: closes it, at once
            assertEquals(List.of("0#0:0-3"), cuts(batcher), "no checkpoint held the seal: cut by record time, nothing waited for one");
            snapshot = snapshot(batcher, 1);
        }
        try (var batcher = batcher(100, 1, 0, snapshot, 1)) {
            batcher.processElement(record(0, 5, 2 * MAX_WAIT_MS), 0);
            batcher.processElement(record(0, 6, 4 * MAX_WAIT_MS), 0);
            assertEquals(List.of("0#1:4-5"), cuts(batcher), "the restore finds no seal: the next batch goes on from offset 4");
        }
    }

    @Test
    void anIdleBatchGoesOutOnceTheCutLogHasItsCutWithoutACheckpoint() throws Exception {
        try (var batcher = batcher(100, 1, 0, null, 0, cutLog)) {
            feed(batcher, 0, 0, 3, 0);
            batcher.setProcessingTime(MAX_WAIT_MS); // idle and drained: sealed, its cut sent
            assertEquals(List.of(), cuts(batcher), "sent, not acknowledged yet");
            runMail(batcher); // the broker's acknowledgement
            batcher.setProcessingTime(MAX_WAIT_MS + SealProtocol.ACK_POLL_MS);
            assertEquals(List.of("0#0:0-2"), cuts(batcher), "no checkpoint was taken: the cut log made the cut durable");
        }
        assertEquals(List.of(new Cut(0, 0, 0, 2, 3)), loggedCuts(0));
    }

    /**
     * With a cut log, a batch is sealed once it is max-wait old and its partition drained, though
     * a record came since: a burst that ends just before the record-time cut would otherwise hold
     * the batch's first record for max-wait more. Without a cut log only max-wait without a record
     * seals (a seal there may wait for a checkpoint).
     */
    @Test
    void withACutLogABatchIsSealedMaxWaitAfterItsFirstRecord() throws Exception {
        try (var batcher = batcher(100, 1, 0, null, 0, cutLog)) {
            feed(batcher, 0, 0, 1, 0);
            batcher.setProcessingTime(MAX_WAIT_MS - 100);
            feed(batcher, 0, 1, 2, 0);
            cutIdleThroughTheLog(batcher); // max-wait after the first record, 100 ms after the last
            assertEquals(List.of("0#0:0-1"), cuts(batcher));
        }
        try (var batcher = batcher(100, 1, 0, null, 0)) {
            feed(batcher, 1, 0, 1, 0);
            batcher.setProcessingTime(MAX_WAIT_MS - 100);
            feed(batcher, 1, 1, 2, 0);
            batcher.setProcessingTime(MAX_WAIT_MS);
            assertEquals(List.of(), cuts(batcher), "without a cut log: not idle for max-wait yet");
        }
    }

    @Test
    void aSealWhoseCutWasSentIsNotWithdrawn() throws Exception {
        try (var batcher = batcher(100, 1, 0, null, 0, cutLog)) {
            feed(batcher, 0, 0, 3, 0);
            batcher.setProcessingTime(MAX_WAIT_MS); // sealed, its cut sent
            batcher.processElement(record(0, 3, MAX_WAIT_MS / 2), 0); // within max-wait by record time, yet held: the log may hold the cut
            runMail(batcher);
            batcher.setProcessingTime(MAX_WAIT_MS + SealProtocol.ACK_POLL_MS);
            batcher.processElement(record(0, 4, 3 * MAX_WAIT_MS), 0); // too late by record time: closes the batch of the held record
            assertEquals(List.of("0#0:0-2", "0#1:3-3"), cuts(batcher));
        }
    }

    /**
     * A run cuts an idle batch through the cut log and fails before any checkpoint after it; its
     * replay from an earlier snapshot (or from nothing, a fresh job's restart) gets offsets 0 to 5
     * at once, so its partition never looks idle and the batch would reach offset 5: the cut log
     * has it close after offset 2 as before, where the failed run's pushes of batch 0 ended.
     */
    @Test
    void aReplayCutsWhereTheCutLogSaysAlthoughMoreRecordsHaveArrived() throws Exception {
        OperatorSubtaskState beforeOffset2;
        OperatorSubtaskState holdingOffset2;
        try (var batcher = batcher(100, 1, 0, null, 0, cutLog)) {
            feed(batcher, 0, 0, 2, 0);
            beforeOffset2 = snapshot(batcher, 1);
            feed(batcher, 0, 2, 3, 0);
            holdingOffset2 = snapshot(batcher, 2); // the open batch holds the cut's last record, unsealed
            cutIdleThroughTheLog(batcher);
            assertEquals(List.of("0#0:0-2"), cuts(batcher));
        }
        produce(0, 6);
        List<String> expected = List.of("0#0:0-2", "0#1:3-5");
        assertEquals(expected, replay(null, 0, 0), "a fresh job's restart");
        assertEquals(expected, replay(beforeOffset2, 1, 2), "restored before the cut's last record: closes right after it");
        assertEquals(expected, replay(holdingOffset2, 2, 3), "restored holding the cut's last record: closes at once");
        assertEquals(List.of("0#0:0-5"), replay(beforeOffset2, 1, 2, CutLog.off()), "without the cut log the replay would cut elsewhere");
    }

    /**
     * A job resumed from a checkpoint (a new job, built later: its own cuts topic start is the
     * topic's end then) reads a partition that had no state in that checkpoint from the lineage's
     * start, which the checkpoint carries: the stopped job cut that partition idle after it.
     */
    @Test
    void aResumedJobFollowsTheIdleCutsOfAPartitionTheCheckpointHadNoStateFor() throws Exception {
        OperatorSubtaskState withoutPartition0;
        produce(1, 2); // partition 1 is never drained, so never cut idle
        try (var batcher = batcher(100, 1, 0, null, 0, cutLog)) {
            feed(batcher, 1, 0, 1, 0);
            withoutPartition0 = snapshot(batcher, 1);
            feed(batcher, 0, 0, 3, 0);
            cutIdleThroughTheLog(batcher); // partition 0's first batch, cut idle after the checkpoint
            assertEquals(List.of("0#0:0-2"), cuts(batcher));
        }
        produce(0, 6);
        CutLog resumed;
        try (var consumer = kafka.connection().client().consumer()) {
            Map<Integer, Long> end = new HashMap<>();
            consumer.endOffsets(List.of(new TopicPartition(cutsTopic, 0), new TopicPartition(cutsTopic, 1)))
                    .forEach((tp, offset) -> end.put(tp.partition(), offset));
            resumed = CutLog.on(kafka.connection(), cutsTopic, end);
        }
        assertEquals(List.of("0#0:0-2", "0#1:3-5"), replay(withoutPartition0, 1, 0, resumed));
        assertTrue(loggedFences(0) >= 2, "every batcher that opened fenced the cuts partitions it reads");
    }

    private long loggedFences(int partition) {
        return loggedRecords(partition).stream().filter(Cut::isFence).count();
    }

    private List<String> replay(OperatorSubtaskState restored, long checkpoint, long fromOffset) throws Exception {
        return replay(restored, checkpoint, fromOffset, cutLog);
    }

    /** The batcher restored, fed offsets from {@code fromOffset} to 5 and then one late by record time: its cuts. */
    private List<String> replay(OperatorSubtaskState restored, long checkpoint, long fromOffset, CutLog log) throws Exception {
        try (var batcher = batcher(100, 1, 0, restored, checkpoint, log)) {
            feed(batcher, 0, fromOffset, 6, 0);
            batcher.processElement(record(0, 6, 3 * MAX_WAIT_MS), 0);
            return cuts(batcher);
        }
    }

    /** The cuts recorded in partition {@code partition} of the cuts topic. */
    private List<Cut> loggedCuts(int partition) {
        return loggedRecords(partition).stream().filter(v -> !Cut.isFence(v)).map(Cut::fromBytes).toList();
    }

    /** The records of partition {@code partition} of the cuts topic, fences included. */
    private List<byte[]> loggedRecords(int partition) {
        List<byte[]> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.connection().client().consumer()) {
            TopicPartition tp = new TopicPartition(cutsTopic, partition);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            while (consumer.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    /** Records 0 to {@code count - 1} of {@code partition} of the examples topic, as the drain check sees them. */
    private void produce(int partition, int count) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, null, new byte[] {(byte) i})).get();
            }
        }
    }

    /** Max-wait after the open batch's first record (its partition drained): sealed, its cut logged and acknowledged. */
    private static void cutIdleThroughTheLog(KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher)
            throws Exception {
        batcher.setProcessingTime(MAX_WAIT_MS);
        runMail(batcher);
        batcher.setProcessingTime(MAX_WAIT_MS + SealProtocol.ACK_POLL_MS);
    }

    @Test
    void aBatchIsNotSealedWhileKafkaHoldsRecordsAfterIt() throws Exception {
        produce(0, 4);
        try (var batcher = batcher(100, 1, 0, null, 0)) {
            feed(batcher, 0, 0, 3, 0); // a replay that has not reached offset 3 yet: it only looks idle
            batcher.setProcessingTime(MAX_WAIT_MS);
            snapshot(batcher, 1);
            batcher.notifyOfCompletedCheckpoint(1);
            batcher.setProcessingTime(3 * MAX_WAIT_MS);
            assertEquals(List.of(), cuts(batcher), "not sealed, so not cut by processing time");
        }
    }

    @Test
    void aSealInARestoredCheckpointIsDurable() throws Exception {
        OperatorSubtaskState snapshot;
        try (var batcher = batcher(100, 1, 0, null, 0)) {
            feed(batcher, 0, 0, 3, 0);
            batcher.setProcessingTime(MAX_WAIT_MS); // sealed
            snapshot = snapshot(batcher, 1);
        }
        try (var batcher = batcher(100, 1, 0, snapshot, 1)) {
            batcher.processElement(record(0, 3, 0), 0);
            batcher.setProcessingTime(2 * MAX_WAIT_MS);
            assertEquals(List.of("0#0:0-2"), cuts(batcher), "the restore's checkpoint holds the seal: the same cut as before");
        }
    }

    @Test
    void afterARescaleEachSubtaskCutsTheOpenBatchesOfThePartitionsItNowOwns() throws Exception {
        // Partitions 0 and 1 land in key groups 0 and 64: subtasks 0 and 1 of two.
        OperatorSubtaskState one;
        try (var batcher = batcher(4, 1, 0, null, 0)) {
            feed(batcher, 0, 0, 2, 0);
            feed(batcher, 1, 0, 3, 0);
            one = snapshot(batcher, 1);
        }
        OperatorSubtaskState[] two = new OperatorSubtaskState[2];
        for (int subtask = 0; subtask < 2; subtask++) {
            var share = AbstractStreamOperatorTestHarness.repartitionOperatorState(one, MAX_PARALLELISM, 1, 2, subtask);
            try (var batcher = batcher(4, 2, subtask, share, 1)) {
                feed(batcher, subtask, subtask == 0 ? 2 : 3, 5, 0);
                assertEquals(List.of(subtask + "#0:0-3"), cuts(batcher), "subtask " + subtask);
                two[subtask] = snapshot(batcher, 2);
            }
        }
        // And back to one subtask, which continues both partitions' second batches.
        var whole = AbstractStreamOperatorTestHarness.repartitionOperatorState(
                AbstractStreamOperatorTestHarness.repackageState(two), MAX_PARALLELISM, 2, 1, 0);
        try (var batcher = batcher(4, 1, 0, whole, 2)) {
            feed(batcher, 0, 5, 8, 0);
            feed(batcher, 1, 5, 8, 0);
            assertEquals(List.of("0#1:4-7", "1#1:4-7"), cuts(batcher));
        }
    }

    private static String topic(String prefix) {
        return prefix + "-" + System.nanoTime();
    }

    /** Records {@code from} (inclusive) to {@code to} (exclusive) of {@code partition}, each at record time {@code time}. */
    private void feed(KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher,
                      int partition, long from, long to, long time) throws Exception {
        for (long offset = from; offset < to; offset++) {
            batcher.processElement(record(partition, offset, time), 0);
        }
    }

    private SourceRecord record(int partition, long offset, long time) {
        return BatcherHarness.record(topic, partition, offset, time);
    }

    private KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher(
            int batchSize, int parallelism, int subtask, OperatorSubtaskState restored, long restoredCheckpoint) throws Exception {
        return batcher(batchSize, parallelism, subtask, restored, restoredCheckpoint, CutLog.off());
    }

    private KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher(
            int batchSize, int parallelism, int subtask, OperatorSubtaskState restored, long restoredCheckpoint, CutLog cutLog)
            throws Exception {
        KafkaConnection connection = kafka.connection();
        var batcher = new MiniBatcher(KEY_GROUPS, new long[0], BatchSizeRamp.constant(batchSize), MAX_WAIT_MS, new ExampleValidator(100), 0, topic,
                new PartitionTail(connection), new PartitionLag(connection, topic, TrainingOptions.LAG_REFRESH_INTERVAL.defaultValue().toMillis()),
                new BatchCredits(connection, topic("applied"), 0, 20, TrainingOptions.CREDIT_HARD_CAP.defaultValue().toMillis()),
                cutLog,
                TrainingOptions.METRICS_REPORT_INTERVAL.defaultValue().toMillis());
        return BatcherHarness.open(batcher, parallelism, subtask, restored, restoredCheckpoint);
    }
}
