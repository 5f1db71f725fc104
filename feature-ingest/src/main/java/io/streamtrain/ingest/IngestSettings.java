package io.streamtrain.ingest;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where and how an ingest run writes.
 *
 * @param partitions create missing topics with this many partitions; 0 leaves topic creation to the cluster
 * @param producerOverrides extra/overriding Kafka producer properties
 * @param progress receives a progress line at most every {@code progressInterval}; null for none
 */
public record IngestSettings(String bootstrapServers, String topic, String deadLetterTopic, int partitions,
        Map<String, Object> producerOverrides, Consumer<String> progress, Duration progressInterval) {
    public static final int DEFAULT_PARTITIONS = 4;
    public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(2);

    public IngestSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
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
    public static IngestSettings of(String bootstrapServers, String topic) {
        return new IngestSettings(bootstrapServers, topic, defaultDeadLetterTopic(topic), DEFAULT_PARTITIONS,
                Map.of(), null, DEFAULT_PROGRESS_INTERVAL);
    }

    public IngestSettings withDeadLetterTopic(String t) {
        return new IngestSettings(bootstrapServers, topic, t, partitions, producerOverrides, progress, progressInterval);
    }

    public IngestSettings withPartitions(int n) {
        return new IngestSettings(bootstrapServers, topic, deadLetterTopic, n, producerOverrides, progress, progressInterval);
    }

    public IngestSettings withProducerOverrides(Map<String, Object> p) {
        return new IngestSettings(bootstrapServers, topic, deadLetterTopic, partitions, p, progress, progressInterval);
    }

    public IngestSettings withProgress(Consumer<String> sink, Duration interval) {
        return new IngestSettings(bootstrapServers, topic, deadLetterTopic, partitions, producerOverrides, sink, interval);
    }
}
