package io.streamtrain.ps;

/**
 * A parameter-server subtask's gradient staleness (quantiles of its {@code ps.gradientStalenessMs}
 * histogram), emitted about once a report interval on {@link ParameterServer#REPORTS} so the metrics topic
 * holds it for dashboards and reports of finished runs. A POJO, so no Avro class crosses operators.
 */
public class StalenessReport {
    public long time;
    public int subtask;
    public int attempt;
    public int parallelism;
    public double p50Ms;
    public double p99Ms;

    public StalenessReport() {}
}
