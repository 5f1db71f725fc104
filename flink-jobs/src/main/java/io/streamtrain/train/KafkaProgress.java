package io.streamtrain.train;

import io.streamtrain.kafka.KafkaConnection;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import io.streamtrain.kafka.Topics;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import java.time.Duration;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * What the brokers know about a training run's topics: their start and end offsets, the records
 * in a range, and a consumer group's committed offsets (where {@code --start-from committed}
 * starts). A run's own progress comes from its checkpoints instead (the launcher's CheckpointedProgress):
 * a group also holds what earlier runs of the same name committed.
 */
public final class KafkaProgress implements AutoCloseable {
    private final KafkaConnection kafka;
    private final Admin admin;
    private KafkaConsumer<byte[], byte[]> consumer; // for counting, opened on first use

    public KafkaProgress(KafkaConnection kafka) {
        this.kafka = kafka;
        this.admin = kafka.client()
                .withDefault(AdminClientConfig.CLIENT_ID_CONFIG, "streamtrain-progress")
                .withDefault(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000)
                .withDefault(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20000)
                .admin();
    }

    /** Creates each topic (name → partitions) that does not exist yet. */
    public void ensureTopics(Map<String, Integer> topics) {
        Topics.ensure(admin, topics);
    }

    /** Creates each topic that does not exist yet, as it says (partitions, replication factor, configs). */
    public void ensureTopics(Collection<NewTopic> topics) {
        Topics.ensure(admin, topics);
    }

    /**
     * Creates the topics a training job writes (feedback, applied, metrics, dead letters, model
     * updates) if missing, with their {@link TopicOptions}; topics that exist are left as they are.
     */
    public void ensureJobTopics(Configuration conf) {
        Topics.ensure(admin, TopicOptions.jobTopics(conf));
    }

    /** Each offset no higher than the partition's {@code ceiling} (partitions without one as they are). */
    public static Map<TopicPartition, Long> capped(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> ceiling) {
        Map<TopicPartition, Long> result = new HashMap<>(offsets);
        result.replaceAll((tp, o) -> Math.min(o, ceiling.getOrDefault(tp, Long.MAX_VALUE)));
        return result;
    }

    public boolean topicExists(String topic) throws Exception {
        return admin.listTopics().names().get().contains(topic);
    }

    public Set<TopicPartition> partitions(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .collect(Collectors.toSet());
    }

    /** Committed-read end offsets (the last stable offset) of every partition of the topic. */
    public Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
        return offsets(partitions(topic), OffsetSpec.latest());
    }

    public Map<TopicPartition, Long> startOffsets(String topic) throws Exception {
        return offsets(partitions(topic), OffsetSpec.earliest());
    }

    private Map<TopicPartition, Long> offsets(Collection<TopicPartition> partitions, OffsetSpec spec) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec));
        Map<TopicPartition, Long> result = new HashMap<>();
        admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get()
                .forEach((tp, info) -> result.put(tp, info.offset()));
        return result;
    }

    /**
     * Per partition, the first offset whose record timestamp is at or after {@code epochMillis};
     * the (committed-read) end offset where no record is that late.
     */
    public Map<TopicPartition, Long> offsetsForTime(String topic, long epochMillis) throws Exception {
        Map<TopicPartition, Long> found = offsets(partitions(topic), OffsetSpec.forTimestamp(epochMillis));
        Map<TopicPartition, Long> end = endOffsets(topic);
        Map<TopicPartition, Long> result = new HashMap<>();
        found.forEach((tp, offset) -> result.put(tp, offset < 0 ? end.get(tp) : offset));
        return result;
    }

    /** Offsets the consumer group committed for the topic; partitions without a commit are absent. */
    public Map<TopicPartition, Long> committed(String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> all =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, Long> result = new HashMap<>();
        all.forEach((tp, om) -> {
            if (om != null && tp.topic().equals(topic)) {
                result.put(tp, om.offset());
            }
        });
        return result;
    }

    /** Σ max(0, end − committed) over the topic's partitions (a partition never committed counts from {@code floor}). */
    public static long lag(Map<TopicPartition, Long> end, Map<TopicPartition, Long> committed, Map<TopicPartition, Long> floor) {
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            long c = committed.getOrDefault(e.getKey(), floor.getOrDefault(e.getKey(), 0L));
            lag += Math.max(0, e.getValue() - c);
        }
        return lag;
    }

    /**
     * Counts the committed records between {@code from} and the current end: offsets alone would
     * also count transaction markers.
     */
    public static long countCommittedRecords(KafkaConnection kafka, String topic, Map<TopicPartition, Long> from) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(kafka, "read_committed")) {
            return countRecords(consumer, from, consumer.endOffsets(from.keySet()), Long.MAX_VALUE);
        }
    }

    /**
     * Counts every record between {@code from} and the current end, committed or not (as a
     * read_uncommitted reader, such as the PS's feedback source, sees them), but no transaction markers.
     */
    public static long countWrittenRecords(KafkaConnection kafka, Map<TopicPartition, Long> from) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(kafka, "read_uncommitted")) {
            return countRecords(consumer, from, consumer.endOffsets(from.keySet()), Long.MAX_VALUE);
        }
    }

    /**
     * Counts the committed records in {@code [from, to)} of each partition, up to {@code limit}:
     * a transactional producer's commit markers (and aborted records) take offsets too.
     */
    public long countCommittedRecords(Map<TopicPartition, Long> from, Map<TopicPartition, Long> to, long limit) {
        if (consumer == null) {
            consumer = consumer(kafka, "read_committed");
        }
        return countRecords(consumer, from, to, limit);
    }

    /**
     * Reads each partition from its {@code from} to its {@code to}, up to {@code limit} records.
     *
     * @throws TimeoutException when the range was not read within 30 s (Kafka unreachable or slow):
     *     a partial count would pass for the truth, so there is none
     */
    private static long countRecords(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> from,
                                       Map<TopicPartition, Long> to, long limit) {
        Map<TopicPartition, Long> ranges = new HashMap<>();
        from.forEach((tp, o) -> {
            if (o < to.getOrDefault(tp, 0L)) {
                ranges.put(tp, o);
            }
        });
        consumer.assign(ranges.keySet());
        ranges.forEach(consumer::seek);
        long count = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (count < limit && System.nanoTime() < deadline
                && ranges.keySet().stream().anyMatch(tp -> consumer.position(tp) < to.get(tp))) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() < to.get(new TopicPartition(r.topic(), r.partition()))) {
                    count++;
                }
            }
        }
        if (count < limit && ranges.keySet().stream().anyMatch(tp -> consumer.position(tp) < to.get(tp))) {
            throw new TimeoutException("could not read the records of " + ranges.keySet() + " up to " + to + " within 30 s");
        }
        return count;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaConnection kafka, String isolationLevel) {
        return kafka.client()
                .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-progress-count")
                .require(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel)
                .consumer();
    }

    @Override
    public void close() {
        if (consumer != null) {
            consumer.close();
        }
        admin.close();
    }
}
