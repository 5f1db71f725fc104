package io.streamtrain.train.worker;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.train.batch.MiniBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.runtime.state.KeyGroupRange;

/**
 * The batches a worker subtask holds until all their rows have arrived, per key (a source
 * partition's key), in sequence order. They live on the heap and are copied into operator state at
 * every snapshot: under unaligned checkpoints a barrier overtakes the rows in flight, so a snapshot
 * can find a batch with only some of its rows (the others are in the checkpoint's channel state, or
 * the PS answers them after its own snapshot). Union list state, so that after a rescale each
 * subtask takes the batches of the partitions it now owns.
 */
final class WaitingBatches {
    private static final ListStateDescriptor<MiniBatch> BATCHES = new ListStateDescriptor<>("worker-waiting-batches", MiniBatch.class);
    private static final ListStateDescriptor<PulledRows> ROWS = new ListStateDescriptor<>("worker-waiting-rows", PulledRows.class);

    private final KeyGroups keyGroups;
    private final Map<Integer, TreeMap<Long, BatchAssembly>> byKey = new HashMap<>();
    private ListState<MiniBatch> batchState;
    private ListState<PulledRows> rowState;

    WaitingBatches(KeyGroups keyGroups) {
        this.keyGroups = keyGroups;
    }

    /** Opens the state and, after a restore, takes back the waiting batches of this subtask's partitions. */
    void initialize(OperatorStateStore store, RuntimeContext runtime, boolean restored) throws Exception {
        batchState = store.getUnionListState(BATCHES);
        rowState = store.getUnionListState(ROWS);
        if (!restored) {
            return;
        }
        KeyGroupRange owned = KeyGroups.ownedBy(runtime.getTaskInfo());
        for (MiniBatch b : batchState.get()) {
            if (owned.contains(keyGroups.groupOfPartition(b.sourcePartition))) {
                assembly(keyGroups.keyOfPartition(b.sourcePartition), b.batchSeq).batch = b;
            }
        }
        for (PulledRows r : rowState.get()) {
            if (owned.contains(keyGroups.groupOfPartition(r.sourcePartition))) {
                assembly(keyGroups.keyOfPartition(r.sourcePartition), r.batchSeq).rows.add(r);
            }
        }
    }

    /** Batch {@code seq} of a key's partition, created when its first part (the batch or some rows) arrives. */
    BatchAssembly assembly(int key, long seq) {
        return queue(key).computeIfAbsent(seq, s -> new BatchAssembly());
    }

    /** The waiting batches of one key, first sequence first. */
    TreeMap<Long, BatchAssembly> queue(int key) {
        return byKey.computeIfAbsent(key, k -> new TreeMap<>());
    }

    /** Copies every waiting batch and the rows it has so far into operator state. */
    void snapshot() throws Exception {
        List<MiniBatch> batches = new ArrayList<>();
        List<PulledRows> rows = new ArrayList<>();
        for (TreeMap<Long, BatchAssembly> queue : byKey.values()) {
            for (BatchAssembly a : queue.values()) {
                if (a.batch != null) {
                    batches.add(a.batch);
                }
                rows.addAll(a.rows);
            }
        }
        batchState.update(batches);
        rowState.update(rows);
    }
}
