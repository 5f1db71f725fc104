package io.streamtrain.train.batch;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaOutage;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * Answers one question for the batcher's idle timer: does a source partition hold any committed
 * record at or after an offset? Only a partition that is truly drained may be sealed; a replay
 * after a restore always has records ahead of it, so it never seals where the failed run may
 * already have cut and pushed further (see MiniBatcher).
 */
public final class PartitionTail implements Serializable, AutoCloseable {
    private static final long serialVersionUID = 1L;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration POLL_STEP = Duration.ofMillis(20);
    private static final int POLL_STEPS = 10;

    private final KafkaConnection kafka;
    /** A backfill's range end per partition: a partition is drained there, whatever Kafka holds after it. */
    private final HashMap<Integer, Long> stopOffsets;
    private transient KafkaConsumer<byte[], byte[]> consumer;
    /**
     * Per partition, a committed record this tail has seen. While the batcher waits below it the
     * answer is known: under a backlog the source serves partitions in turns, so a partition looks
     * idle every few hundred milliseconds, and asking Kafka each time cost 40 % of the batcher.
     */
    private transient Map<TopicPartition, Long> knownRecord;
    /** Logs an outage once in a while instead of once per idle timer. */
    private transient KafkaOutage outage;

    public PartitionTail(KafkaConnection kafka) {
        this(kafka, Map.of());
    }

    public PartitionTail(KafkaConnection kafka, Map<Integer, Long> stopOffsets) {
        this.kafka = kafka;
        this.stopOffsets = new HashMap<>(stopOffsets);
    }

    /** True for a record at or after a backfill's range end: the batcher ignores it. */
    public boolean beyondRange(int partition, long offset) {
        // Called per record: streaming jobs have no range, so skip the boxed lookup.
        return !stopOffsets.isEmpty() && offset >= stopOffsets.getOrDefault(partition, Long.MAX_VALUE);
    }

    /**
     * True only if no committed record exists at or after {@code offset} (in a backfill: before
     * the partition's stop offset); false when there is one or when that could not be settled
     * quickly (the caller asks again later).
     */
    public boolean drainedFrom(String topic, int partition, long offset) {
        long stop = stopOffsets.getOrDefault(partition, Long.MAX_VALUE);
        if (offset >= stop) {
            return true;
        }
        TopicPartition tp = new TopicPartition(topic, partition);
        if (knownRecord == null) {
            knownRecord = new HashMap<>();
        }
        Long known = knownRecord.get(tp);
        // A known record lies below its search's end, which is at most stop: it still counts.
        if (known != null && offset <= known) {
            return false;
        }
        boolean drained;
        try {
            drained = settle(tp, offset, stop);
        } catch (KafkaException e) {
            // Kafka unreachable or slow: do not seal now; the idle timer asks again. A misconfiguration
            // (say, the job's principal may not read the topic) is not waited out: it fails the task.
            outage().failed("asking whether " + tp + " has records from offset " + offset, e);
            return false;
        }
        outage().reachable();
        return drained;
    }

    private boolean settle(TopicPartition tp, long offset, long stop) {
        KafkaConsumer<byte[], byte[]> c = consumer();
        c.assign(List.of(tp));
        // read_committed: the last stable offset
        long end = Math.min(stop, c.endOffsets(List.of(tp), REQUEST_TIMEOUT).get(tp));
        if (end <= offset) {
            return true;
        }
        // Between offset and end there may be only transaction markers or aborted records, which a
        // read_committed consumer skips: fetch and see whether its position reaches the end.
        c.seek(tp, offset);
        for (int i = 0; i < POLL_STEPS; i++) {
            for (var r : c.poll(POLL_STEP)) {
                if (r.offset() < end) {
                    knownRecord.put(tp, r.offset());
                    return false;
                }
            }
            if (c.position(tp, REQUEST_TIMEOUT) >= end) {
                return true;
            }
        }
        return false;
    }

    private KafkaOutage outage() {
        if (outage == null) {
            outage = KafkaOutage.endless("batcher partition tail");
        }
        return outage;
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        if (consumer == null) {
            consumer = kafka.client()
                    .require(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                    .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-batcher-tail")
                    // One record answers the question: fetch as little as the broker allows (it still
                    // sends the first record batch whole), not the default megabyte per partition.
                    .withDefault(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1)
                    .withDefault(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1024)
                    .withDefault(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 1024)
                    .consumer();
        }
        return consumer;
    }

    @Override
    public void close() {
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(1));
            consumer = null;
        }
    }
}
