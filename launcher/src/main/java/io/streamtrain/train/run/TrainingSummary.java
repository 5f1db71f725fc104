package io.streamtrain.train.run;

import io.streamtrain.train.worker.ProgressiveValidation;
import java.util.Locale;

/**
 * The outcome of one {@code train} run; {@link #line()} is the machine-readable last line.
 * {@code examplesPerSecond}, {@code steadyCpuMicrosPerExample} (this JVM's CPU, meaningful when the
 * job runs in it) and {@code steadyStalenessP50Ms}/{@code steadyStalenessP99Ms} (the PS subtasks'
 * pushes together) are read over the same span, start-up and the drained end left out
 * ({@link SteadyRate}); {@code stalenessP99Ms}/{@code stalenessP50Ms} are over the whole run, the
 * highest PS subtask's.
 */
public record TrainingSummary(
        long records,
        double examplesPerSecond,
        double windowAuc,
        double windowLogloss,
        double baseLogloss,
        long checkpoints,
        long restarts,
        double stalenessP99Ms,
        double stalenessP50Ms,
        long deadLetters,
        long creditWaitMs,
        long creditWaitsRunOut,
        double seconds,
        String latestCheckpoint,
        long checkpointMs,
        long checkpointBytes,
        double steadyCpuMicrosPerExample,
        double steadyStalenessP50Ms,
        double steadyStalenessP99Ms) {

    /** A line for the run's output when the model ended worse than the base rate; empty otherwise. */
    public String warning() {
        String w = ProgressiveValidation.worseThanBaseRate(windowLogloss, baseLogloss);
        return w.isEmpty() ? w : "warning: " + w + " (diverged or miscalibrated; see the learning-rate and batch-size notes in docs/benchmarks.md)";
    }

    public String line() {
        return String.format(Locale.ROOT,
                "summary: records=%d examples_per_s=%.0f window_auc=%.4f window_logloss=%.4f base_logloss=%.4f checkpoints=%d"
                        + " restarts=%d staleness_p99_ms=%.0f staleness_p50_ms=%.0f steady_staleness_p99_ms=%.0f steady_staleness_p50_ms=%.0f dead_letters=%d credit_wait_ms=%d credit_waits_run_out=%d seconds=%.1f checkpoint_ms=%d"
                        + " checkpoint_bytes=%d checkpoint=%s",
                records, examplesPerSecond, windowAuc, windowLogloss, baseLogloss, checkpoints, restarts, stalenessP99Ms, stalenessP50Ms,
                steadyStalenessP99Ms, steadyStalenessP50Ms, deadLetters, creditWaitMs, creditWaitsRunOut, seconds, checkpointMs, checkpointBytes, latestCheckpoint);
    }
}
