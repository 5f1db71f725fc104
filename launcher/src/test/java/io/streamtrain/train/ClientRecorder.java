package io.streamtrain.train;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;

/**
 * A Kafka metrics reporter that remembers the configuration of every client that loads it. Named
 * in a user's client properties ({@code metric.reporters}), it shows which clients those
 * properties reached, and with what settings; admin clients, consumers and producers all load
 * their reporters from their configuration. Clients of one test carry {@link #TAG}, so tests in
 * the same JVM do not see each other's clients.
 */
public final class ClientRecorder implements MetricsReporter {
    /** A client property naming the test that made the client (Kafka passes unknown properties on to reporters). */
    public static final String TAG = "streamtrain.test.client-tag";

    private static final Map<String, List<Map<String, String>>> CLIENTS = new HashMap<>();

    /** The user's client properties that make every client report itself under {@code tag}. */
    public static Map<String, String> properties(String tag) {
        return Map.of("metric.reporters", ClientRecorder.class.getName(), TAG, tag);
    }

    /** The configurations of the clients made so far with {@code tag}. */
    public static List<Map<String, String>> clients(String tag) {
        synchronized (CLIENTS) {
            return new ArrayList<>(CLIENTS.getOrDefault(tag, List.of()));
        }
    }

    @Override
    public void configure(Map<String, ?> configs) {
        Map<String, String> config = new HashMap<>();
        configs.forEach((k, v) -> config.put(k, String.valueOf(v)));
        synchronized (CLIENTS) {
            CLIENTS.computeIfAbsent(config.get(TAG), t -> new ArrayList<>()).add(config);
        }
    }

    @Override
    public void init(List<KafkaMetric> metrics) {}

    @Override
    public void metricChange(KafkaMetric metric) {}

    @Override
    public void metricRemoval(KafkaMetric metric) {}

    @Override
    public void close() {}
}
