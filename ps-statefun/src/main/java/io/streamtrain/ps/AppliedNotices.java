package io.streamtrain.ps;

import io.streamtrain.ps.message.PushApplied;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Coalesces the PS's push-applied notices over a short window: every push handled in the window
 * is counted under its batch, and a flush returns one notice per batch. Pushes of different
 * batches interleave at a PS subtask (a batch's pushes come from several feedback partitions), so
 * counting runs of one batch still sent a notice per few pushes; a window sends one per batch and
 * flush, in one burst that the producer puts in one request (the per-notice producer send was the
 * PS thread's biggest cost, docs/benchmarks.md). The PS flushes on a timer.
 */
final class AppliedNotices {
    /** Insertion order keeps the notices of a partition in batch order. */
    private final Map<BatchId, PushApplied> open = new LinkedHashMap<>();

    /** Counts one handled push of (source partition, batch sequence); true if it opens a window, which then needs a flush. */
    boolean add(int sourcePartition, long batchSeq) {
        boolean opens = open.isEmpty();
        open.computeIfAbsent(new BatchId(sourcePartition, batchSeq), id -> new PushApplied(sourcePartition, batchSeq, 0)).pushes++;
        return opens;
    }

    boolean isEmpty() {
        return open.isEmpty();
    }

    /** The open notices, one per batch; afterwards none is open. */
    List<PushApplied> flush() {
        List<PushApplied> done = new ArrayList<>(open.values());
        open.clear();
        return done;
    }

    private record BatchId(int sourcePartition, long batchSeq) {}
}
