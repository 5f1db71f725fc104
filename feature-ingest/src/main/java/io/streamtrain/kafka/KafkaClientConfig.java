package io.streamtrain.kafka;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The properties of one Kafka client, in three layers, later ones winning: the defaults this
 * client chose ({@link #withDefault}: tuning such as timeouts, batching, a client id), the user's
 * client properties, then the bootstrap servers and what the client needs to be correct
 * ({@link #require}: isolation level, idempotence, acknowledgements). So a user can tune and
 * secure every client but not break one, as the Kafka connector's {@code parseAndSetRequiredProperties}
 * does for its source.
 */
public final class KafkaClientConfig {
    private final String bootstrapServers;
    private final Map<String, String> userProperties;
    private final Map<String, String> defaults = new LinkedHashMap<>();
    private final Map<String, String> required = new LinkedHashMap<>();

    KafkaClientConfig(String bootstrapServers, Map<String, String> userProperties) {
        this.bootstrapServers = bootstrapServers;
        this.userProperties = userProperties;
    }

    /** A setting of this client's that the user's client properties may replace. */
    public KafkaClientConfig withDefault(String key, Object value) {
        defaults.put(key, String.valueOf(value));
        return this;
    }

    /** A setting this client needs to be correct: the user's client properties cannot replace it. */
    public KafkaClientConfig require(String key, Object value) {
        required.put(key, String.valueOf(value));
        return this;
    }

    /** An idempotent producer whose writes all in-sync replicas acknowledged: no record lost or doubled by a retry. */
    public KafkaClientConfig idempotent() {
        return require(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true).require(ProducerConfig.ACKS_CONFIG, "all");
    }

    /** The merged properties, e.g. for the Flink Kafka source's and sink's builders. */
    public Properties properties() {
        Properties p = new Properties();
        p.putAll(defaults);
        p.putAll(userProperties);
        p.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.putAll(required);
        return p;
    }

    public Admin admin() {
        return Admin.create(properties());
    }

    /** A byte-array consumer that assigns its partitions and never commits offsets (none of ours does). */
    public KafkaConsumer<byte[], byte[]> consumer() {
        require(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(properties(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    public KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(properties(), new ByteArraySerializer(), new ByteArraySerializer());
    }
}
