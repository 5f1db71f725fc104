package io.streamtrain.train.run;

import org.HdrHistogram.Histogram;

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
 * compilations and the drained end to the examples, which at 60k examples was half of it. And it
 * carries the PS's staleness counts so far, so that staleness too is read over the span: the whole
 * run's counts hold the job's start (a cold PS, the tower's first passes, the batch-size ramp),
 * whose pushes were seconds stale.
 */
final class SteadyRate {
    private static final double MIN_SECONDS = 0.5;

    /**
     * One reading of the committed records: when, how many, this JVM's CPU ns then, and the PS's
     * staleness counts then (its subtasks' together; null when they could not be read).
     */
    private record Reading(long nanos, long records, long cpuNanos, Histogram staleness) {}

    private Reading first;
    private Reading last;
    private Reading lastWithBacklog;

    /**
     * The committed records moved to {@code records} at {@code nanos}, leaving {@code lag} records to
     * read, with this JVM's CPU time at {@code cpuNanos} and the PS's staleness counts so far
     * ({@code staleness}, null when unknown).
     */
    void advanced(long nanos, long records, long lag, long cpuNanos, Histogram staleness) {
        if (last != null && records < last.records) {
            return;
        }
        Reading now = new Reading(nanos, records, cpuNanos, staleness);
        if (first == null) {
            first = now;
        }
        last = now;
        if (lag > 0) {
            lastWithBacklog = now;
        }
    }

    /** Examples/s; {@code records} over {@code activeSeconds} when the offsets did not move long enough to tell. */
    double rate(long records, double activeSeconds) {
        Reading end = spanEnd();
        if (end != null) {
            return (end.records - first.records) / ((end.nanos - first.nanos) / 1e9);
        }
        return Math.max(0, records) / Math.max(1e-3, activeSeconds);
    }

    /**
     * CPU µs of this JVM per example over the span {@link #rate} reads (what the run cost the machine
     * when its job runs in this JVM, as the bench's does); NaN when the offsets did not move long enough to tell.
     */
    double cpuMicrosPerExample() {
        Reading end = spanEnd();
        if (end == null || end.records == first.records) {
            return Double.NaN;
        }
        return (end.cpuNanos - first.cpuNanos) / 1e3 / (end.records - first.records);
    }

    /**
     * The staleness quantile {@code q} (ms) of the pushes the PS applied over the span {@link #rate}
     * reads, its subtasks' together; NaN when the counts at either end are unknown, or a subtask
     * restarted in between (its counts began again).
     */
    double stalenessQuantile(double q) {
        Reading end = spanEnd();
        if (end == null || end.staleness == null || first.staleness == null
                || end.staleness.getTotalCount() <= first.staleness.getTotalCount()) {
            return Double.NaN;
        }
        Histogram span = end.staleness.copy();
        try {
            span.subtract(first.staleness);
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException restarted) {
            return Double.NaN;
        }
        return span.getValueAtPercentile(100 * q);
    }

    /** Where the span from {@link #first} ends: the last reading with records left, else the last one; null if neither is long enough. */
    private Reading spanEnd() {
        for (Reading end : new Reading[] {lastWithBacklog, last}) {
            if (end != null && (end.nanos - first.nanos) / 1e9 >= MIN_SECONDS) {
                return end;
            }
        }
        return null;
    }
}
