package io.streamtrain.serve;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's counters and latency percentiles over its last {@value #WINDOW} requests (see
 * docs/metrics.md). Latency is measured from the request reaching its handler to the response sent.
 */
public final class ServingMetrics {
    static final int WINDOW = 8192;

    private final LongAdder requests = new LongAdder();
    private final LongAdder examples = new LongAdder();
    private final LongAdder clientErrors = new LongAdder();
    private final LongAdder tooLarge = new LongAdder();
    private final LongAdder serverErrors = new LongAdder();
    private final long[] latencies = new long[WINDOW];
    private final AtomicLong next = new AtomicLong();
    private final long startedAt = System.nanoTime();

    void scored(int exampleCount, long nanos) {
        requests.increment();
        examples.add(exampleCount);
        record(nanos);
    }

    void failed(int status, long nanos) {
        requests.increment();
        if (status == 413) {
            tooLarge.increment();
        } else if (status >= 500) {
            serverErrors.increment();
        } else {
            clientErrors.increment();
        }
        record(nanos);
    }

    private void record(long nanos) {
        long i = next.getAndIncrement();
        synchronized (latencies) {
            latencies[(int) (i % WINDOW)] = nanos;
        }
    }

    public long requests() {
        return requests.sum();
    }

    /** Latency percentile in ms over the window, or NaN before the first request. */
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
        return copy[(int) Math.min(n - 1, Math.ceil(quantile * n) - 1)] / 1e6;
    }

    /** The JSON of {@code GET /metrics}. */
    public Map<String, Object> snapshot() {
        Map<String, Object> m = new LinkedHashMap<>();
        double seconds = (System.nanoTime() - startedAt) / 1e9;
        m.put("requests", requests.sum());
        m.put("examplesScored", examples.sum());
        m.put("badRequests", clientErrors.sum());
        m.put("tooLarge", tooLarge.sum());
        m.put("serverErrors", serverErrors.sum());
        m.put("requestsPerSecond", requests.sum() / Math.max(seconds, 1e-3));
        m.put("latencyP50Ms", latencyMs(0.50));
        m.put("latencyP99Ms", latencyMs(0.99));
        m.put("uptimeSeconds", seconds);
        return m;
    }
}
