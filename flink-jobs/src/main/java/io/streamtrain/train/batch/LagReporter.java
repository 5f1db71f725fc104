package io.streamtrain.train.batch;

import io.streamtrain.train.worker.WindowReport;
import java.io.Serializable;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.OutputTag;

/**
 * Reports this subtask's consumer lag ({@link PartitionLag}) on {@link #REPORTS} about once a
 * report interval while records or timers arrive, for the metrics topic.
 */
final class LagReporter implements Serializable {
    private static final long serialVersionUID = 1L;
    static final OutputTag<WindowReport> REPORTS = new OutputTag<>("batcher-reports") {};

    private final PartitionLag lag;
    private final long reportEveryMs;
    private transient TaskInfo task;
    private transient long lastReportAt;

    LagReporter(PartitionLag lag, long reportEveryMs) {
        this.lag = lag;
        this.reportEveryMs = reportEveryMs;
    }

    void open(TaskInfo task, MetricGroup batcherGroup, ProcessingTimeService time) {
        this.task = task;
        lag.open(batcherGroup, time);
    }

    PartitionLag lag() {
        return lag;
    }

    void maybeReport(long now, KeyedProcessFunction<?, ?, ?>.Context ctx) {
        if (now - lastReportAt >= reportEveryMs) {
            lastReportAt = now;
            ctx.output(REPORTS, WindowReport.batcher(now, task.getIndexOfThisSubtask(), task.getAttemptNumber(),
                    task.getNumberOfParallelSubtasks(), lag.total()));
        }
    }

    void close() {
        lag.close();
    }
}
