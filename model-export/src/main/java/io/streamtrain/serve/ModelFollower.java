package io.streamtrain.serve;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.contract.RowCodec;
import io.streamtrain.contract.RowVersion;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaOutage;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a serving store current with the training job's model-updates topic: writes each poll's
 * rows, with their versions, together with the next offsets, atomically ({@link Bundle#apply}), so
 * a restarted server resumes exactly where it stopped. Versioned updates (published as the PS
 * applies them) are written only when newer than the row's stored version ({@link NewestUpdates}),
 * so the repeats a recovery publishes never move a row back; checkpoint-bound (transactional,
 * unversioned) ones are read {@code read_committed} and applied in order. A store new to the topic
 * reads it from the beginning (compacted: the latest records per row remain); until it has caught up
 * its rows may be older than its bundle's.
 *
 * <p>Freshness of an update = when it became visible here minus when the PS applied it (the
 * record's timestamp).
 */
public final class ModelFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelFollower.class);
    private static final Duration POLL = Duration.ofMillis(200);

    private final Bundle store;
    private final String topic;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final AtomicLong updatesApplied = new AtomicLong();
    private final AtomicLong updatesSkipped = new AtomicLong();
    private final AtomicLong badRecords = new AtomicLong();
    private final DescriptiveStatisticsHistogram freshnessMs = new DescriptiveStatisticsHistogram(4096);
    private volatile Map<Integer, Long> caughtUpAt; // end offsets when following started; null once reached
    private volatile long lastAppliedAt = -1;
    private volatile String failure;
    private volatile long lag = -1; // records behind the topic's end after the last poll; -1 before the first
    private volatile boolean running = true;

    public ModelFollower(KafkaConnection kafka, String topic, Bundle store) {
        this.store = store;
        this.topic = topic;
        this.consumer = kafka.client()
                .require(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase())
                .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-serve-follow")
                .withDefault(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000)
                .consumer();
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(20)).stream()
                .map(i -> new TopicPartition(topic, i.partition())).toList();
        if (partitions.isEmpty()) {
            consumer.close();
            throw new IllegalArgumentException("model-updates topic " + topic + " does not exist");
        }
        consumer.assign(partitions);
        Map<Integer, Long> resumeAt = store.followedOffsets();
        for (TopicPartition tp : partitions) {
            Long next = resumeAt.get(tp.partition());
            if (next != null) {
                consumer.seek(tp, next);
            } else {
                consumer.seekToBeginning(List.of(tp));
            }
        }
        Map<Integer, Long> end = new HashMap<>();
        consumer.endOffsets(partitions).forEach((tp, o) -> end.put(tp.partition(), o));
        this.caughtUpAt = end;
        LOG.info("following {} from {} (end offsets now {})", topic, resumeAt.isEmpty() ? "the beginning" : resumeAt, end);
        this.thread = new Thread(this::run, "serve-follow-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        // A server has nothing better to do than wait for Kafka: it serves the rows it has meanwhile.
        KafkaOutage outage = KafkaOutage.endless("serve --follow " + topic);
        try {
            while (running) {
                try {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                    if (!records.isEmpty()) {
                        apply(records);
                    }
                    checkCaughtUp();
                    lag = currentLag();
                    outage.reachable();
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    outage.failed("following the model updates", e);
                    Thread.sleep(outage.backoffMillis());
                }
            }
        } catch (WakeupException | InterruptedException e) {
            // closing
        } catch (Exception e) {
            failure = e.toString();
            LOG.error("following {} stopped: serving goes on with the rows applied so far", topic, e);
        }
    }

    private void apply(ConsumerRecords<byte[], byte[]> records) {
        NewestUpdates updates = new NewestUpdates();
        Map<Integer, Long> next = new HashMap<>();
        int width = store.width();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            next.put(r.partition(), r.offset() + 1);
            try {
                long key = RowCodec.rowKey(r.key());
                // a deep model's dense chunk rows come the same way, wider
                updates.add(key, RowCodec.weights(r.value(), DenseChunks.rowWidth(key, width)), RowVersion.of(r.headers()));
            } catch (IllegalArgumentException | NullPointerException e) {
                badRecords.incrementAndGet(); // not a row of this model: skip it, never stop serving
            }
        }
        Map<Long, Bundle.RowUpdate> rows = updates.newerThanIn(store);
        store.apply(rows, next);
        long now = System.currentTimeMillis();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            freshnessMs.update(Math.max(0, now - r.timestamp()));
        }
        updatesApplied.addAndGet(rows.size());
        updatesSkipped.addAndGet(updates.offered() - rows.size());
        lastAppliedAt = now;
    }

    private void checkCaughtUp() {
        Map<Integer, Long> target = caughtUpAt;
        if (target == null) {
            return;
        }
        for (TopicPartition tp : consumer.assignment()) {
            if (consumer.position(tp) < target.getOrDefault(tp.partition(), 0L)) {
                return;
            }
        }
        caughtUpAt = null;
        LOG.info("caught up with {}: {} rows updated", topic, updatesApplied.get());
    }

    /** Records the consumer knows it is behind (last stable offset minus position), or -1 while unknown. */
    private long currentLag() {
        long total = 0;
        for (TopicPartition tp : consumer.assignment()) {
            java.util.OptionalLong l = consumer.currentLag(tp);
            if (l.isEmpty()) {
                return -1;
            }
            total += l.getAsLong();
        }
        return total;
    }

    /** Records behind the topic after the last poll, or -1 before the first poll that told. */
    public long lag() {
        return lag;
    }

    /** Why following stopped, or null while it runs. */
    public String failure() {
        return failure;
    }

    /** Rows written to the store since following started. */
    public long updatesApplied() {
        return updatesApplied.get();
    }

    /** Updates read but not written: repeats, older versions, or superseded within one poll. */
    public long updatesSkipped() {
        return updatesSkipped.get();
    }

    /** True once the store holds everything the topic held when following started. */
    public boolean caughtUp() {
        return caughtUpAt == null;
    }

    /** What {@code GET /health} reports about following. */
    public Map<String, Object> status() {
        Map<String, Object> s = new LinkedHashMap<>();
        var stats = freshnessMs.getStatistics();
        s.put("topic", topic);
        s.put("caughtUp", caughtUp());
        s.put("updatesApplied", updatesApplied.get());
        s.put("updatesSkipped", updatesSkipped.get());
        s.put("badRecords", badRecords.get());
        s.put("lastAppliedAt", lastAppliedAt);
        s.put("freshnessP50Ms", stats.size() == 0 ? null : stats.getQuantile(0.5));
        s.put("freshnessP99Ms", stats.size() == 0 ? null : stats.getQuantile(0.99));
        s.put("lag", lag);
        s.put("failure", failure);
        return s;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(10_000);
        consumer.close(Duration.ofSeconds(5));
    }
}
