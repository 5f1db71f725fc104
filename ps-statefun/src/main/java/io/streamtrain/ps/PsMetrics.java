package io.streamtrain.ps;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/** The PS's metric group, {@code <operator>.ps.*}: every metric it reports, in one place (docs/metrics.md). */
final class PsMetrics {
    final Counter rowsPulled;
    final Counter pushesApplied;
    final Counter duplicatePushes;
    final Counter rowsAdmitted;
    final Counter pendingCreated;
    final Counter rowsExpired;
    final Counter rowCacheHits;
    final Counter rowCacheMisses;
    final Counter rowsWrittenBack;
    /** The recent pushes' staleness (dashboards, the metrics topic). */
    final Histogram staleness;
    /** Every push's staleness since the subtask started (a run's summary; its counts for a span's). */
    final RunHistogram runStaleness;
    final Histogram changedRowsSnapshotMs;
    private final MetricGroup group;

    PsMetrics(MetricGroup group) {
        this.group = group;
        rowsPulled = group.counter("rowsPulled");
        pushesApplied = group.counter("pushesApplied");
        duplicatePushes = group.counter("duplicatePushesDropped");
        rowsAdmitted = group.counter("rowsAdmitted");
        pendingCreated = group.counter("featuresPending");
        rowsExpired = group.counter("rowsExpired");
        rowCacheHits = group.counter("rowCacheHits");
        rowCacheMisses = group.counter("rowCacheMisses");
        rowsWrittenBack = group.counter("rowsWrittenBack");
        staleness = group.histogram("gradientStalenessMs", new DescriptiveStatisticsHistogram(2048));
        runStaleness = group.histogram("gradientStalenessRunMs", new RunHistogram());
        group.gauge("gradientStalenessRunCounts", (Gauge<String>) runStaleness::encoded);
        changedRowsSnapshotMs = group.histogram("changedRowsSnapshotMs", new DescriptiveStatisticsHistogram(256));
    }

    /** The row cache's changed rows: what the next checkpoint copies into operator state. */
    void changedRows(Gauge<Integer> changedRows) {
        group.gauge("changedRows", changedRows);
    }
}
