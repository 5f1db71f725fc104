package io.streamtrain.ingest;

import io.streamtrain.kafka.KafkaConnection;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where and how an ingest run writes.
 *
 * @param partitions create missing topics with this many partitions; 0 leaves topic creation to the cluster
 * @param producerOverrides producer properties that replace ingest's and the user's client properties
 * @param progress receives a progress line at most every {@code progressInterval}; null for none
 */
public record IngestSettings(KafkaConnection kafka, String topic, String deadLetterTopic, int partitions,
        Map<String, Object> producerOverrides, Consumer<String> progress, Duration progressInterval) {
    public static final int DEFAULT_PARTITIONS = 4;
    public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(2);

    public IngestSettings {
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
        Objects.requireNonNull(progressInterval, "progressInterval");
        producerOverrides = Map.copyOf(producerOverrides);
        if (partitions < 0) {
            throw new IllegalArgumentException("partitions must be >= 0, was " + partitions);
        }
        if (topic.equals(deadLetterTopic)) {
            throw new IllegalArgumentException("the dead-letter topic must differ from the topic");
        }
    }

    /** {@code <topic>.dlq}. */
    public static String defaultDeadLetterTopic(String topic) {
        return topic + ".dlq";
    }

    /** Dead letters to {@code <topic>.dlq}, 4 partitions, no progress output. */
    public static IngestSettings of(KafkaConnection kafka, String topic) {
        return new IngestSettings(kafka, topic, defaultDeadLetterTopic(topic), DEFAULT_PARTITIONS,
                Map.of(), null, DEFAULT_PROGRESS_INTERVAL);
    }

    public IngestSettings withDeadLetterTopic(String t) {
        return new IngestSettings(kafka, topic, t, partitions, producerOverrides, progress, progressInterval);
    }

    public IngestSettings withPartitions(int n) {
        return new IngestSettings(kafka, topic, deadLetterTopic, n, producerOverrides, progress, progressInterval);
    }

    public IngestSettings withProducerOverrides(Map<String, Object> p) {
        return new IngestSettings(kafka, topic, deadLetterTopic, partitions, p, progress, progressInterval);
    }

    public IngestSettings withProgress(Consumer<String> sink, Duration interval) {
        return new IngestSettings(kafka, topic, deadLetterTopic, partitions, producerOverrides, sink, interval);
    }
}
