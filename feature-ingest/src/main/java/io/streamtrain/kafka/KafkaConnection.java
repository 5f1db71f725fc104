package io.streamtrain.kafka;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How a process or a job reaches Kafka: the bootstrap servers and the user's client properties
 * (security, timeouts, anything Kafka's clients accept). Every Kafka client streamtrain makes,
 * inside a job or in the launcher, takes its properties from here ({@link #client()}), so what a
 * cluster asks of its clients is said once. Serializable: operators carry it to the task managers
 * and make their clients there.
 *
 * <p>The properties may hold secrets (passwords, JAAS configs): nothing here prints or logs them.
 */
public final class KafkaConnection implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String bootstrapServers;
    private final TreeMap<String, String> clientProperties;

    /**
     * @param clientProperties the user's Kafka client properties, for every client; the bootstrap
     *     servers and each client's required settings take precedence over them
     */
    public KafkaConnection(String bootstrapServers, Map<String, String> clientProperties) {
        this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        this.clientProperties = new TreeMap<>(clientProperties);
    }

    /** A connection with Kafka's default client settings (a plaintext cluster). */
    public static KafkaConnection to(String bootstrapServers) {
        return new KafkaConnection(bootstrapServers, Map.of());
    }

    /** A connection whose clients take the properties in {@code propertiesFile} ({@link KafkaClientProperties}); null: none. */
    public static KafkaConnection of(String bootstrapServers, Path propertiesFile) {
        return new KafkaConnection(bootstrapServers, KafkaClientProperties.load(propertiesFile));
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The user's client properties, secrets included: for a job's configuration, never for display. */
    public Map<String, String> clientProperties() {
        return Collections.unmodifiableMap(clientProperties);
    }

    /** The settings of one new client, to which the caller adds its own before building it. */
    public KafkaClientConfig client() {
        return new KafkaClientConfig(bootstrapServers, clientProperties);
    }

    /** The bootstrap servers only: the client properties may hold secrets. */
    @Override
    public String toString() {
        return bootstrapServers + (clientProperties.isEmpty() ? "" : " (with " + clientProperties.size() + " client properties)");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KafkaConnection other && bootstrapServers.equals(other.bootstrapServers)
                && clientProperties.equals(other.clientProperties);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bootstrapServers, clientProperties);
    }
}
