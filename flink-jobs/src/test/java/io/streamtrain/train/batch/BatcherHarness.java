package io.streamtrain.train.batch;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** A {@link MiniBatcher} in Flink's keyed operator test harness, with records and what came out of it. */
final class BatcherHarness {
    static final int MAX_PARALLELISM = 128;
    static final KeyGroups KEY_GROUPS = new KeyGroups(MAX_PARALLELISM);
    private static final AvroCodec<Example> CODEC = AvroCodec.of(Example.class);

    private BatcherHarness() {}

    /** Opens {@code batcher} as subtask {@code subtask} of {@code parallelism}, restored from {@code restored} if not null. */
    static KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> open(
            MiniBatcher batcher, int parallelism, int subtask, OperatorSubtaskState restored, long restoredCheckpoint)
            throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new MiniBatcherOperator(batcher),
                (SourceRecord r) -> KEY_GROUPS.keyOfPartition(r.partition), Types.INT, MAX_PARALLELISM, parallelism, subtask);
        if (restored != null) {
            harness.setRestoredCheckpointId(restoredCheckpoint);
            harness.initializeState(restored);
        }
        harness.open();
        return harness;
    }

    /** An example at {@code offset} of {@code partition} with two features, at record time {@code time}. */
    static SourceRecord record(String topic, int partition, long offset, long time) {
        Example e = Example.newBuilder()
                .setId(partition + "-" + offset)
                .setEventTime(Instant.ofEpochMilli(time))
                .setLabel(offset % 2)
                .setFeatures(List.of(new Feature(1, offset % 5, 1f), new Feature(2, offset % 3, 1f)))
                .build();
        return new SourceRecord(topic, partition, offset, time, CODEC.encode(e));
    }

    /** What Flink does at a checkpoint: the open batches go to state before the barrier, then the snapshot. */
    static OperatorSubtaskState snapshot(KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher,
                                         long checkpointId) throws Exception {
        batcher.prepareSnapshotPreBarrier(checkpointId);
        return batcher.snapshot(checkpointId, checkpointId);
    }

    /** Each batch as {@code partition#seq:firstOffset-lastOffset}, in order. */
    static List<String> cuts(KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher) {
        return batcher.extractOutputValues().stream()
                .map(b -> b.sourcePartition + "#" + b.batchSeq + ":" + b.firstOffset + "-" + b.lastOffset).toList();
    }

    /** Runs the next mail of the operator's mailbox on this (the task's) thread, waiting up to 20 s for one. */
    static void runMail(KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            var mail = batcher.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
            if (mail.isPresent()) {
                mail.get().run();
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no mail within 20 s");
    }

    static List<PullRequest> pulls(KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> batcher) {
        return batcher.getSideOutput(MiniBatcher.PULLS).stream().map(StreamRecord::getValue).toList();
    }
}
