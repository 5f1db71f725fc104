package io.streamtrain.train.batch;

import java.io.Serializable;

/**
 * Where a partition's batches close, by the two rules a replay reproduces, both pure functions of
 * the record sequence: a batch closes when it reaches its size (by its sequence number, {@link BatchSizeRamp}), or before a record whose
 * timestamp is more than max-wait after the batch's first record's. (The third rule, closing an
 * idle batch by wall-clock time, is not a function of the records: see {@link SealProtocol}.)
 */
final class BatchCutter implements Serializable {
    private static final long serialVersionUID = 1L;

    private final BatchSizeRamp batchSizes;
    /** Where the ramp ends: the per-record size check is then a comparison, not a walk up the ramp. */
    private final long firstFullSeq;
    private final long maxWaitMs;

    BatchCutter(BatchSizeRamp batchSizes, long maxWaitMs) {
        this.batchSizes = batchSizes;
        this.firstFullSeq = batchSizes.firstFullSeq();
        this.maxWaitMs = maxWaitMs;
    }

    /** The batch closes before {@code next} joins it: {@code next} is too late by record time. */
    boolean closesBefore(OpenBatch batch, BatchRecord next) {
        return !batch.isEmpty() && next.timestamp - batch.firstTimestamp() > maxWaitMs;
    }

    /** The batch closes with the record just added. */
    boolean isFull(OpenBatch batch) {
        long seq = batch.nextSeq();
        return batch.size() >= (seq >= firstFullSeq ? batchSizes.full() : batchSizes.sizeOf(seq));
    }

    /** The size batches grow to, for sizing their buffers. */
    int fullBatchSize() {
        return batchSizes.full();
    }

    long maxWaitMs() {
        return maxWaitMs;
    }
}
