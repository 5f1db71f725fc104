package io.streamtrain.train.run;

/**
 * What a run's {@code summary:} line reports of the training loop itself, read over REST while the
 * job still runs: the PS's gradient staleness p99 and p50 over every push since its subtasks started
 * ({@code ps.gradientStalenessRunMs}, the largest over the subtasks), and the batcher's
 * flow-control counters (summed over its subtasks; 0 when not reported).
 */
record LoopReadings(double stalenessP99Ms, double stalenessP50Ms, long creditWaitMs, long creditWaitsRunOut) {
    static LoopReadings of(JobMonitor monitor) throws Exception {
        return new LoopReadings(
                monitor.maxOfMetric("parameter-server", "gradientStalenessRunMs_p99"),
                monitor.maxOfMetric("parameter-server", "gradientStalenessRunMs_median"),
                (long) monitor.sumOfMetric("batcher", "creditWaitMs"),
                (long) monitor.sumOfMetric("batcher", "creditWaitsRunOut"));
    }
}
