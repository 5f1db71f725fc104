package io.streamtrain.ps;

import io.streamtrain.ps.message.PushApplied;

/**
 * Coalesces the PS's push-applied notices: a run of pushes of the same batch becomes one notice
 * that counts them. A batch reaches a PS subtask as one push per key group, nearly always back to
 * back, so this turns ~one Kafka record per key group into ~one per batch (the per-notice producer
 * send was the PS thread's biggest cost, docs/benchmarks.md). The PS flushes the open notice on a
 * short timer, so the last batch before a pause is announced too.
 */
final class AppliedNotices {
    private int sourcePartition;
    private long batchSeq;
    private int pushes;

    /** Counts one handled push; returns the notice of the previous batch when this push starts another, else null. */
    PushApplied add(int sourcePartition, long batchSeq) {
        if (pushes > 0 && sourcePartition == this.sourcePartition && batchSeq == this.batchSeq) {
            pushes++;
            return null;
        }
        PushApplied done = flush();
        this.sourcePartition = sourcePartition;
        this.batchSeq = batchSeq;
        this.pushes = 1;
        return done;
    }

    /** The open notice, if any; afterwards none is open. */
    PushApplied flush() {
        if (pushes == 0) {
            return null;
        }
        PushApplied done = new PushApplied(sourcePartition, batchSeq, pushes);
        pushes = 0;
        return done;
    }
}
