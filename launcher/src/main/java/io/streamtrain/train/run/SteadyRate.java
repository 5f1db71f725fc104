package io.streamtrain.train.run;

/**
 * A run's rate from its checkpointed progress, with start-up and the drained end left out.
 * Checkpointed offsets move only when a checkpoint completes, so the rate is read between two
 * checkpoints: from the first one that moved the offsets to the last one that still left records to
 * read. Training ran flat out through every interval that ended with records left; the checkpoint
 * that covers the last records comes up to an interval after they were trained, and counting up to
 * it read a 10 s interval's 40 s run a tenth to a quarter slow (docs/benchmarks.md). Falls back to
 * the last checkpoint that moved the offsets, then to the whole run, when the narrower span is under
 * half a second. A reading below an earlier one is ignored, so the rate is never negative.
 *
 * <p>Each reading also carries this JVM's CPU time, so the CPU per example is read over the same
 * span as the rate: a whole run's CPU over its records charges job start-up, the JIT's first
 * compilations and the drained end to the examples, which at 60k examples was half of it.
 */
final class SteadyRate {
    private static final double MIN_SECONDS = 0.5;

    private boolean advanced;
    private long firstAt;
    private long recordsAtFirst;
    private long lastAt;
    private long recordsAtLast;
    private long lastWithBacklogAt;
    private long recordsAtLastWithBacklog;
    private long cpuAtFirst;
    private long cpuAtLast;
    private long cpuAtLastWithBacklog;

    /**
     * The committed records moved to {@code records} at {@code nanos}, leaving {@code lag} records to
     * read, with this JVM's CPU time at {@code cpuNanos}.
     */
    void advanced(long nanos, long records, long lag, long cpuNanos) {
        if (advanced && records < recordsAtLast) {
            return;
        }
        if (!advanced) {
            advanced = true;
            firstAt = nanos;
            recordsAtFirst = records;
            cpuAtFirst = cpuNanos;
        }
        lastAt = nanos;
        recordsAtLast = records;
        cpuAtLast = cpuNanos;
        if (lag > 0) {
            lastWithBacklogAt = nanos;
            recordsAtLastWithBacklog = records;
            cpuAtLastWithBacklog = cpuNanos;
        }
    }

    /** Examples/s; {@code records} over {@code activeSeconds} when the offsets did not move long enough to tell. */
    double rate(long records, double activeSeconds) {
        if (advanced) {
            double backlogSeconds = (lastWithBacklogAt - firstAt) / 1e9;
            if (backlogSeconds >= MIN_SECONDS) {
                return (recordsAtLastWithBacklog - recordsAtFirst) / backlogSeconds;
            }
            double seconds = (lastAt - firstAt) / 1e9;
            if (seconds >= MIN_SECONDS) {
                return (recordsAtLast - recordsAtFirst) / seconds;
            }
        }
        return Math.max(0, records) / Math.max(1e-3, activeSeconds);
    }

    /**
     * CPU µs of this JVM per example over the span {@link #rate} reads (what the run cost the machine
     * when its job runs in this JVM, as the bench's does); NaN when the offsets did not move long enough to tell.
     */
    double cpuMicrosPerExample() {
        if (advanced) {
            if ((lastWithBacklogAt - firstAt) / 1e9 >= MIN_SECONDS && recordsAtLastWithBacklog > recordsAtFirst) {
                return (cpuAtLastWithBacklog - cpuAtFirst) / 1e3 / (recordsAtLastWithBacklog - recordsAtFirst);
            }
            if ((lastAt - firstAt) / 1e9 >= MIN_SECONDS && recordsAtLast > recordsAtFirst) {
                return (cpuAtLast - cpuAtFirst) / 1e3 / (recordsAtLast - recordsAtFirst);
            }
        }
        return Double.NaN;
    }
}
