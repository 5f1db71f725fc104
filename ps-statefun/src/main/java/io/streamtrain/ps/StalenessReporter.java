package io.streamtrain.ps;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.metrics.Histogram;

/**
 * Gradient staleness, a pull's time to its push being applied: into the recent window's histogram
 * and the whole run's, and about once a report interval a {@link StalenessReport} of the window's quantiles
 * (while pushes arrive) for the metrics topic.
 */
final class StalenessReporter {
    private final Histogram recent;
    private final Histogram run;
    private final TaskInfo task;
    private final long reportEveryMs;
    private long lastReportAt;

    StalenessReporter(Histogram recent, Histogram run, TaskInfo task, long reportEveryMs) {
        this.recent = recent;
        this.run = run;
        this.task = task;
        this.reportEveryMs = reportEveryMs;
    }

    /** Records a push pulled at {@code pulledAt} and applied at {@code now}; returns a report when one is due, else null. */
    StalenessReport record(long pulledAt, long now) {
        recent.update(now - pulledAt);
        run.update(now - pulledAt);
        if (now - lastReportAt < reportEveryMs) {
            return null;
        }
        lastReportAt = now;
        StalenessReport r = new StalenessReport();
        r.time = now;
        r.subtask = task.getIndexOfThisSubtask();
        r.attempt = task.getAttemptNumber();
        r.parallelism = task.getNumberOfParallelSubtasks();
        var stats = recent.getStatistics();
        r.p50Ms = stats.getQuantile(0.5);
        r.p99Ms = stats.getQuantile(0.99);
        return r;
    }
}
