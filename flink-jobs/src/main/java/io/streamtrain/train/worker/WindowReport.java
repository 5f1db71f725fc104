package io.streamtrain.train.worker;

import io.streamtrain.ps.StalenessReport;

/**
 * One metrics-topic record on its way out (as Avro {@code TrainingMetrics}): a worker subtask's
 * progressive-validation window and checkpoint/restore state, a PS subtask's staleness, or a
 * batcher subtask's consumer lag.
 */
public class WindowReport {
    public static final String WORKER = "worker";
    public static final String PS = "ps";
    public static final String BATCHER = "batcher";

    public long time;
    public String operator = WORKER;
    public int subtask;
    public int attempt;
    public int parallelism;
    public long examples;
    public long windowExamples;
    public double windowAuc;
    public double windowLogloss;
    public long windowPositives = -1;
    public long restoredCheckpoint = -1;
    public long completedCheckpoint = -1;
    public double stalenessP50Ms = Double.NaN;
    public double stalenessP99Ms = Double.NaN;
    public long lag = -1;

    public WindowReport() {}

    public static WindowReport batcher(long time, int subtask, int attempt, int parallelism, long lag) {
        WindowReport r = new WindowReport();
        r.time = time;
        r.operator = BATCHER;
        r.subtask = subtask;
        r.attempt = attempt;
        r.parallelism = parallelism;
        r.windowAuc = Double.NaN;
        r.windowLogloss = Double.NaN;
        r.lag = lag;
        return r;
    }

    public static WindowReport of(StalenessReport s) {
        WindowReport r = new WindowReport();
        r.time = s.time;
        r.operator = PS;
        r.subtask = s.subtask;
        r.attempt = s.attempt;
        r.parallelism = s.parallelism;
        r.windowAuc = Double.NaN;
        r.windowLogloss = Double.NaN;
        r.stalenessP50Ms = s.p50Ms;
        r.stalenessP99Ms = s.p99Ms;
        return r;
    }
}
