package io.streamtrain.train.worker;

/** One worker subtask's progressive-validation window, on its way to the metrics topic (as Avro {@code TrainingMetrics}). */
public class WindowReport {
    public long time;
    public int subtask;
    public int attempt;
    public long examples;
    public long windowExamples;
    public double windowAuc;
    public double windowLogloss;

    public WindowReport() {}
}
