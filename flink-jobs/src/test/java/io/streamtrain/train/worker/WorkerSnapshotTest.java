package io.streamtrain.train.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.batch.MiniBatch;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Under unaligned checkpoints a barrier can overtake a batch's rows, so a snapshot finds batches
 * with only some of their rows; after a restore (or a rescale) the rest must still complete them.
 */
class WorkerSnapshotTest {
    private static final int MAX_PARALLELISM = 128;
    private static final long FEATURE_A = FeatureKey.of(1, 7);
    private static final long FEATURE_B = FeatureKey.of(2, 9);

    private static final KeyGroups KEY_GROUPS = new KeyGroups(MAX_PARALLELISM);

    @Test
    void aBatchWithSomeOfItsRowsAtASnapshotIsTrainedOnceTheRestAreInAfterTheRestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var worker = worker(1, 0, null)) {
            worker.processElement1(batch(3, 0), 0);
            worker.processElement2(rows(3, 0, 5, FeatureKey.BIAS, FEATURE_A), 0);
            assertTrue(worker.extractOutputValues().isEmpty(), "the batch still waits for the rows of key group 6");
            snapshot = worker.snapshot(1, 1);
        }
        try (var worker = worker(1, 0, snapshot)) {
            worker.processElement2(rows(3, 0, 6, FEATURE_B), 1);
            List<Push> pushes = worker.extractOutputValues();
            assertEquals(Set.of(5, 6), pushes.stream().map(p -> p.keyGroup).collect(Collectors.toSet()));
            assertTrue(pushes.stream().allMatch(p -> p.sourcePartition == 3 && p.batchSeq == 0), pushes.toString());
        }
    }

    @Test
    void afterARescaleEachSubtaskCompletesTheWaitingBatchesOfThePartitionsItNowOwns() throws Exception {
        // Partitions 0 and 1 land in key groups 0 and 64: subtasks 0 and 1 of two.
        OperatorSubtaskState snapshot;
        try (var worker = worker(1, 0, null)) {
            for (int partition : new int[] {0, 1}) {
                worker.processElement1(batch(partition, 0), 0);
                worker.processElement2(rows(partition, 0, 5, FeatureKey.BIAS, FEATURE_A), 0);
            }
            snapshot = worker.snapshot(1, 1);
        }
        for (int subtask : new int[] {0, 1}) {
            OperatorSubtaskState share = AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot, MAX_PARALLELISM, 1, 2, subtask);
            try (var worker = worker(2, subtask, share)) {
                worker.processElement2(rows(subtask, 0, 6, FEATURE_B), 1);
                List<Push> pushes = worker.extractOutputValues();
                assertEquals(2, pushes.size(), "subtask " + subtask + ": " + pushes);
                assertTrue(pushes.stream().allMatch(p -> p.sourcePartition == subtask), pushes.toString());
            }
        }
        // Nor does a subtask carry the other's batch into its own next snapshot (union state: it
        // would come back twice after the next restore).
        OperatorSubtaskState subtask0 = AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot, MAX_PARALLELISM, 1, 2, 0);
        OperatorSubtaskState again;
        try (var worker = worker(2, 0, subtask0)) {
            again = worker.snapshot(2, 2);
        }
        try (var worker = worker(1, 0, again)) {
            worker.processElement2(rows(1, 0, 5, FeatureKey.BIAS, FEATURE_A), 2);
            worker.processElement2(rows(1, 0, 6, FEATURE_B), 2);
            assertTrue(worker.extractOutputValues().isEmpty(), "partition 1's batch was not subtask 0's to keep");
        }
    }

    private static KeyedTwoInputStreamOperatorTestHarness<Integer, MiniBatch, PulledRows, Push> worker(
            int parallelism, int subtask, OperatorSubtaskState restored) throws Exception {
        var harness = new KeyedTwoInputStreamOperatorTestHarness<>(
                new KeyedCoProcessOperator<>(new Worker(ModelShape.sparse(ModelKind.LR, 0).batchModel(), KEY_GROUPS, 1000,
                        TrainingOptions.METRICS_REPORT_INTERVAL.defaultValue().toMillis())),
                (MiniBatch b) -> KEY_GROUPS.keyOfPartition(b.sourcePartition),
                (PulledRows r) -> KEY_GROUPS.keyOfPartition(r.sourcePartition),
                Types.INT, MAX_PARALLELISM, parallelism, subtask);
        if (restored != null) {
            harness.initializeState(restored);
        }
        harness.open();
        return harness;
    }

    /** One example with features A and B, whose rows come from two PS key groups. */
    private static MiniBatch batch(int partition, long seq) {
        MiniBatch b = new MiniBatch();
        b.sourcePartition = partition;
        b.batchSeq = seq;
        b.firstOffset = 100;
        b.lastOffset = 100;
        b.labels = new float[] {1f};
        b.starts = new int[] {0, 2};
        b.keys = new long[] {FEATURE_A, FEATURE_B};
        b.values = new float[] {1f, 1f};
        b.pulls = 2;
        return b;
    }

    private static PulledRows rows(int partition, long seq, int keyGroup, long... keys) {
        return new PulledRows(keyGroup, partition, seq, 0L, keys, new float[keys.length], new long[keys.length]);
    }
}
