package io.streamtrain.report;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.schema.TrainingMetricsCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reading a run's metrics topic (Avro {@code TrainingMetrics}) from its beginning, for the report
 * (to its current end) and the dashboard (following it). Records that do not decode are counted,
 * not fatal: a report of a run must not fail on one stray record.
 */
public final class MetricsTopic {
    private final TrainingMetricsCodec codec = new TrainingMetricsCodec();
    private final List<TrainingMetrics> records = new ArrayList<>();
    private long unreadable;

    /** Every record of {@code topic} up to its end offsets at the time of the call. */
    public static MetricsTopic readToEnd(KafkaConnection kafka, String topic, Duration timeout) {
        MetricsTopic read = new MetricsTopic();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(kafka)) {
            List<TopicPartition> partitions = partitions(consumer, topic, timeout);
            if (partitions.isEmpty()) {
                throw new IllegalArgumentException("topic " + topic + " does not exist");
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + timeout);
                }
                read.add(consumer.poll(Duration.ofMillis(200)));
            }
        }
        return read;
    }

    /** A consumer that commits nothing and never creates the topic it asks about. */
    static KafkaConsumer<byte[], byte[]> consumer(KafkaConnection kafka) {
        return kafka.client()
                .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-metrics-reader")
                .require(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false)
                .consumer();
    }

    /** The topic's partitions; empty while it does not exist. */
    static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic, Duration timeout) {
        var infos = consumer.partitionsFor(topic, timeout);
        return infos == null ? List.of() : infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
    }

    /** Decodes a poll's records; returns how many were added. */
    int add(ConsumerRecords<byte[], byte[]> polled) {
        int added = 0;
        for (ConsumerRecord<byte[], byte[]> r : polled) {
            try {
                records.add(codec.decode(r.value()));
                added++;
            } catch (Exception e) {
                unreadable++;
            }
        }
        return added;
    }

    public List<TrainingMetrics> records() {
        return records;
    }

    /** Records that are not {@code TrainingMetrics}, skipped. */
    public long unreadable() {
        return unreadable;
    }
}
