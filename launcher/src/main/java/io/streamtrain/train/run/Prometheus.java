package io.streamtrain.train.run;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.prometheus.LoopbackPrometheusReporterFactory;

/**
 * Flink's Prometheus reporter ({@code flink-metrics-prometheus}, on the classpath of the
 * streamtrain jar) for local runs, as {@link LoopbackPrometheusReporterFactory}: the MiniCluster of
 * {@code train} serves every metric of its JobManager and TaskManager at
 * {@code http://127.0.0.1:<port>/metrics}; on the local cluster each JVM takes the next free port
 * of the range. The keys are Flink's own ({@code metrics.reporter.prom.*}, plus {@code .host}),
 * so a {@code -D} override (e.g. {@code -Dmetrics.reporter.prom.host=0.0.0.0} to serve every
 * interface) or a cluster's configuration wins.
 */
public final class Prometheus {
    public static final String FACTORY_KEY = "metrics.reporter.prom.factory.class";
    public static final String PORT_KEY = "metrics.reporter.prom.port";
    public static final String HOST_KEY = "metrics.reporter.prom." + LoopbackPrometheusReporterFactory.HOST;
    public static final String FACTORY = LoopbackPrometheusReporterFactory.class.getName();
    /** Flink's default port and the next nine: one per JVM of a local cluster. */
    public static final String DEFAULT_PORTS = "9249-9258";
    /** The value of {@code --prometheus-port} that switches the reporter off. */
    public static final String OFF = "off";

    private Prometheus() {}

    private static ConfigOption<String> key(String key) {
        return ConfigOptions.key(key).stringType().noDefaultValue();
    }

    /** Turns the reporter on at {@code ports} (a port or a range such as 9249-9258) unless the configuration names one already. */
    public static Configuration enable(Configuration c, String ports) {
        if (OFF.equalsIgnoreCase(ports) || c.containsKey(FACTORY_KEY)) {
            return c;
        }
        c.set(key(FACTORY_KEY), FACTORY);
        c.set(key(PORT_KEY), ports);
        if (!c.containsKey(HOST_KEY)) {
            c.set(key(HOST_KEY), LoopbackPrometheusReporterFactory.DEFAULT_HOST);
        }
        return c;
    }
}
