package io.streamtrain.serve;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;
import io.prometheus.client.exporter.common.TextFormat;
import io.streamtrain.bundle.ModelCard;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The server's metrics in Prometheus' text format ({@code GET /metrics}, see docs/metrics.md):
 * requests and their latency by route and status, examples scored, reloads, and, read at scrape
 * time, the model served (its checkpoint is its version), readiness and the follower's lag and
 * freshness. Also keeps the exact latency percentiles of the last {@value #WINDOW} requests for
 * {@code serve}'s own metrics line.
 */
public final class ServingMetrics {
    static final int WINDOW = 8192;
    static final String CONTENT_TYPE = TextFormat.CONTENT_TYPE_004;

    private final CollectorRegistry registry = new CollectorRegistry();
    private final Counter requests = Counter.build("streamtrain_serve_requests_total",
            "HTTP requests answered, by route and status code.").labelNames("route", "code").register(registry);
    private final Histogram latency = Histogram.build("streamtrain_serve_request_duration_seconds",
                    "Time from a request reaching its handler to its response written, by route.")
            .labelNames("route")
            .buckets(0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5)
            .register(registry);
    private final Counter examples = Counter.build("streamtrain_serve_examples_scored_total",
            "Examples scored (a request may carry many).").register(registry);
    private final Gauge inFlight = Gauge.build("streamtrain_serve_requests_in_flight",
            "Requests being handled now.").register(registry);
    private final Counter reloads = Counter.build("streamtrain_serve_model_reloads_total",
            "Bundle switches asked for, by result (ok or failed).").labelNames("result").register(registry);
    private final long[] latencies = new long[WINDOW];
    private final AtomicLong next = new AtomicLong();

    ServingMetrics(ModelSlot slot, BooleanSupplier ready) {
        new ModelCollector(slot, ready).register(registry);
    }

    void started() {
        inFlight.inc();
    }

    void answered(String route, int status, long nanos) {
        inFlight.dec();
        requests.labels(route, Integer.toString(status)).inc();
        latency.labels(route).observe(nanos / 1e9);
        long i = next.getAndIncrement();
        synchronized (latencies) {
            latencies[(int) (i % WINDOW)] = nanos;
        }
    }

    void scored(int exampleCount) {
        examples.inc(exampleCount);
    }

    void reloaded(boolean ok) {
        reloads.labels(ok ? "ok" : "failed").inc();
    }

    /** Requests answered since start. */
    public long requests() {
        return next.get();
    }

    /** Latency percentile in ms over the last {@value #WINDOW} requests, or NaN before the first. */
    public double latencyMs(double quantile) {
        long n = Math.min(next.get(), WINDOW);
        if (n == 0) {
            return Double.NaN;
        }
        long[] copy;
        synchronized (latencies) {
            copy = Arrays.copyOf(latencies, (int) n);
        }
        Arrays.sort(copy);
        return copy[(int) Math.min(n - 1, Math.max(0, Math.ceil(quantile * n) - 1))] / 1e6;
    }

    /** The body of {@code GET /metrics}. */
    String scrape() {
        StringWriter out = new StringWriter();
        try {
            TextFormat.write004(out, registry.metricFamilySamples());
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /** What the served model and its follower say at scrape time. */
    private static final class ModelCollector extends Collector {
        private final ModelSlot slot;
        private final BooleanSupplier ready;

        ModelCollector(ModelSlot slot, BooleanSupplier ready) {
            this.slot = slot;
            this.ready = ready;
        }

        @Override
        public List<MetricFamilySamples> collect() {
            List<MetricFamilySamples> out = new ArrayList<>();
            out.add(new GaugeMetricFamily("streamtrain_serve_ready", "1 when /health/ready answers 200.",
                    ready.getAsBoolean() ? 1 : 0));
            ServedModel model = slot.peek();
            if (model == null) {
                return out;
            }
            ModelCard card = model.card();
            GaugeMetricFamily info = new GaugeMetricFamily("streamtrain_serve_model_info",
                    "The bundle served (always 1; its labels say which).", List.of("name", "model", "checkpoint_id", "bundle"));
            info.addMetric(List.of(card.name(), card.modelType(), Long.toString(card.checkpoint().id()), model.source().toString()), 1);
            out.add(info);
            out.add(new GaugeMetricFamily("streamtrain_serve_model_version",
                    "Checkpoint id of the bundle served (the version /v2/models reports).", card.checkpoint().id()));
            out.add(new GaugeMetricFamily("streamtrain_serve_model_checkpoint_timestamp_seconds",
                    "When the checkpoint of the bundle served was taken.", card.checkpoint().timeMs() / 1e3));
            out.add(new GaugeMetricFamily("streamtrain_serve_model_loaded_timestamp_seconds",
                    "When the bundle served was opened.", model.loadedAtMs() / 1e3));
            out.add(new GaugeMetricFamily("streamtrain_serve_model_rows", "Rows in the bundle as exported.", card.contents().rows()));
            model.follower().ifPresent(f -> follow(f.status(), out));
            return out;
        }

        private static void follow(Map<String, Object> status, List<MetricFamilySamples> out) {
            out.add(new GaugeMetricFamily("streamtrain_serve_follow_updates_applied",
                    "Rows written from the model-updates topic since following started.", number(status.get("updatesApplied"))));
            out.add(new GaugeMetricFamily("streamtrain_serve_follow_updates_skipped",
                    "Model updates read but not written: repeats after a recovery, older versions, superseded in the same poll.",
                    number(status.get("updatesSkipped"))));
            out.add(new GaugeMetricFamily("streamtrain_serve_follow_lag_records",
                    "Records the follower is behind the model-updates topic (-1: not known yet).", number(status.get("lag"))));
            out.add(new GaugeMetricFamily("streamtrain_serve_follow_caught_up",
                    "1 once the follower has applied what the topic held when following started.",
                    Boolean.TRUE.equals(status.get("caughtUp")) ? 1 : 0));
            out.add(new GaugeMetricFamily("streamtrain_serve_follow_failed",
                    "1 when the follower stopped on an error (serving goes on with the rows applied so far).",
                    status.get("failure") != null ? 1 : 0));
            long last = (long) number(status.get("lastAppliedAt"));
            if (last > 0) {
                out.add(new GaugeMetricFamily("streamtrain_serve_follow_last_applied_timestamp_seconds",
                        "When the follower last wrote rows.", last / 1e3));
            }
            GaugeMetricFamily freshness = new GaugeMetricFamily("streamtrain_serve_follow_freshness_seconds",
                    "Time from the parameter server applying an update to it being served, over recent updates.", List.of("quantile"));
            for (String q : List.of("0.5", "0.99")) {
                Object v = status.get(q.equals("0.5") ? "freshnessP50Ms" : "freshnessP99Ms");
                if (v != null) {
                    freshness.addMetric(List.of(q), number(v) / 1e3);
                }
            }
            out.add(freshness);
        }

        private static double number(Object o) {
            return o instanceof Number n ? n.doubleValue() : Double.NaN;
        }
    }
}
