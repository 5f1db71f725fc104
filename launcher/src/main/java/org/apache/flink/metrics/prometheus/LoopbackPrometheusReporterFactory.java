package org.apache.flink.metrics.prometheus;

import java.util.Properties;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.PortRange;

/**
 * Creates {@link LoopbackPrometheusReporter}s: {@code metrics.reporter.<name>.port} as for Flink's
 * reporter (a port or a range, default 9249), and {@code metrics.reporter.<name>.host}, the
 * address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).
 */
public final class LoopbackPrometheusReporterFactory implements MetricReporterFactory {
    public static final String HOST = "host";
    public static final String PORT = "port";
    public static final String DEFAULT_HOST = "127.0.0.1";

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new LoopbackPrometheusReporter(properties.getProperty(HOST, DEFAULT_HOST),
                new PortRange(properties.getProperty(PORT, "9249")));
    }
}
