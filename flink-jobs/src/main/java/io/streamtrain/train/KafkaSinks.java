package io.streamtrain.train;

import io.streamtrain.kafka.KafkaClientConfig;
import io.streamtrain.kafka.KafkaConnection;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.kafka.clients.producer.ProducerConfig;

/** The Kafka sinks of the training, join and SQL jobs, their producers configured through the job's {@link KafkaConnection}. */
public final class KafkaSinks {
    /**
     * Above checkpoint plus restart time, at or below the broker's {@code transaction.max.timeout.ms}
     * (15 min by default); a user's client property may lower it for a broker that allows less.
     */
    private static final int TRANSACTION_TIMEOUT_MS = 600_000;

    private KafkaSinks() {}

    /** What every sink of our jobs produces with: idempotent, acknowledged by all replicas, lz4-compressed unless changed. */
    public static KafkaClientConfig producer(KafkaConnection kafka) {
        return kafka.client()
                .idempotent()
                .withDefault(ProducerConfig.LINGER_MS_CONFIG, 2)
                .withDefault(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    }

    /** A sink whose records a replay may repeat: for readers that drop or tolerate repeats. */
    public static <T> KafkaSink<T> atLeastOnce(KafkaClientConfig producer, KafkaRecordSerializationSchema<T> serializer) {
        return KafkaSink.<T>builder()
                .setKafkaProducerConfig(producer.properties())
                .setRecordSerializer(serializer)
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .build();
    }

    /** A transactional sink: its records become visible (read_committed) when the checkpoint that wrote them completes. */
    public static <T> KafkaSink<T> exactlyOnce(KafkaConnection kafka, KafkaRecordSerializationSchema<T> serializer,
            String transactionalIdPrefix) {
        return KafkaSink.<T>builder()
                .setKafkaProducerConfig(producer(kafka).withDefault(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS).properties())
                .setRecordSerializer(serializer)
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(transactionalIdPrefix)
                .build();
    }
}
