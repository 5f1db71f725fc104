package io.streamtrain.train.batch;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;

/**
 * The open batches of this subtask's partitions, kept on the heap and written to keyed state once
 * per checkpoint, before its barrier ({@link #writeBack}): two RocksDB writes per record were a
 * third of the batcher thread. What a checkpoint holds is the same either way, so a restore cuts
 * the same batches.
 */
final class OpenBatches {
    private final ValueState<BatcherMeta> metaState;
    private final ListState<BatchRecord> recordsState;
    private final PartitionLag lag;
    private final int batchSize;
    /** Per partition key, loaded from state on first use after a (re)start. */
    private final Map<Integer, OpenBatch> open = new HashMap<>();

    OpenBatches(RuntimeContext context, PartitionLag lag, int batchSize) {
        // State names are part of the checkpoint layout: a restore finds the state under them.
        this.metaState = context.getState(new ValueStateDescriptor<>("batcher-meta", BatcherMeta.class));
        this.recordsState = context.getListState(new ListStateDescriptor<>("open-batch", BatchRecord.class));
        this.lag = lag;
        this.batchSize = batchSize;
    }

    /** The open batch of partition key {@code key} if it has been loaded since the (re)start, else null. */
    OpenBatch get(Integer key) {
        return open.get(key);
    }

    /**
     * Loads the open batch of the current key, {@code key}, from state. A partition seen for the
     * first time gets fresh meta, which reaches state with the next write-back; a timer ({@code
     * partition < 0}) always finds state.
     */
    OpenBatch load(Integer key, int partition, long now) throws Exception {
        BatcherMeta meta = metaState.value();
        boolean fresh = meta == null;
        if (fresh) {
            if (partition < 0) {
                throw new IllegalStateException("timer for partition key " + key + " without batcher state");
            }
            meta = new BatcherMeta();
            meta.partition = partition;
        }
        OpenBatch batch = new OpenBatch(meta, lag.nextOffsetOf(meta.partition), batchSize, recordsState.get(), now);
        if (fresh) {
            batch.markDirty();
        }
        open.put(key, batch);
        return batch;
    }

    /**
     * Writes the open batches changed since the last call to keyed state; {@code selectKey} makes a
     * partition key the current one.
     */
    void writeBack(Consumer<Integer> selectKey) throws Exception {
        for (Map.Entry<Integer, OpenBatch> e : open.entrySet()) {
            OpenBatch batch = e.getValue();
            if (batch.takeDirty()) {
                selectKey.accept(e.getKey());
                metaState.update(batch.meta);
                recordsState.update(batch.records());
            }
        }
    }
}
