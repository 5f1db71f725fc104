package org.apache.flink.metrics.prometheus;

import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Iterator;
import org.apache.flink.util.PortRange;

/**
 * Flink's Prometheus reporter, serving {@code /metrics} on one host address (127.0.0.1 unless
 * configured otherwise) instead of on every interface: Flink's {@link PrometheusReporter} takes
 * only a port, and a local run must not expose its metrics to the network. It sits in Flink's
 * package because the registry it serves is package-private in {@link AbstractPrometheusReporter}.
 */
public final class LoopbackPrometheusReporter extends AbstractPrometheusReporter {
    private final HTTPServer server;

    LoopbackPrometheusReporter(String host, PortRange ports) {
        this.server = listen(host, ports);
        log.info("Serving Prometheus metrics at http://{}:{}/metrics", host, server.getPort());
    }

    /** The first port of the range that is free on {@code host}. */
    private HTTPServer listen(String host, PortRange ports) {
        Iterator<Integer> candidates = ports.getPortsIterator();
        IOException last = null;
        while (candidates.hasNext()) {
            int port = candidates.next();
            try {
                return new HTTPServer(new InetSocketAddress(host, port), registry, true);
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no free port for Prometheus metrics on " + host + " in " + ports
                + " (metrics.reporter.prom.port)", last);
    }

    int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.stop();
        super.close();
    }
}
