package io.streamtrain.train.batch;

import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * Runs the {@link MiniBatcher} and, before each checkpoint barrier, has it write its open batches
 * to keyed state: only the operator can make each partition key current outside of a record or a
 * timer.
 */
public final class MiniBatcherOperator extends KeyedProcessOperator<Integer, SourceRecord, MiniBatch> {
    private static final long serialVersionUID = 1L;

    public MiniBatcherOperator(MiniBatcher batcher) {
        super(batcher);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        ((MiniBatcher) userFunction).writeBack(this::setCurrentKey);
    }
}
