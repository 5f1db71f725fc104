package io.streamtrain.train.batch;

import io.streamtrain.kafka.KafkaConnection;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batcher's per-partition consumer lag, {@code batcher.partition.<p>.lag}: the partition's
 * read_committed end offset minus the next offset the batcher expects. Flink's Kafka source only
 * reports the sum over a reader's partitions ({@code pendingRecords}), and drops the Kafka
 * client's per-partition tags. End offsets are fetched asynchronously, at most once a refresh interval,
 * when a gauge or {@link #total()} is read; until an answer arrives the last known one counts.
 */
public final class PartitionLag implements Serializable, AutoCloseable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLag.class);

    private final KafkaConnection kafka;
    private final String topic;
    private final long refreshMs;
    private transient Map<Integer, AtomicLong> next;
    private transient Map<Integer, Long> end;
    private transient boolean fetching;
    private transient long endFetchedAt;
    private transient Admin admin;
    private transient MetricGroup group;
    /** The operator's processing time, read from the metrics thread too (its clock is thread-safe). */
    private transient ProcessingTimeService time;

    public PartitionLag(KafkaConnection kafka, String topic, long refreshMs) {
        this.kafka = kafka;
        this.topic = topic;
        this.refreshMs = refreshMs;
    }

    void open(MetricGroup batcherGroup, ProcessingTimeService time) {
        this.time = time;
        next = new ConcurrentHashMap<>();
        end = new ConcurrentHashMap<>();
        group = batcherGroup;
    }

    /** The holder of a partition's next expected offset, its gauge registered on first use. */
    public AtomicLong nextOffsetOf(int partition) {
        return next.computeIfAbsent(partition, p -> {
            AtomicLong holder = new AtomicLong(-1);
            group.addGroup("partition", String.valueOf(p)).gauge("lag", (Gauge<Long>) () -> lag(p, holder.get()));
            return holder;
        });
    }

    /** The lag summed over the partitions this subtask has read. */
    public long total() {
        long sum = 0;
        for (Map.Entry<Integer, AtomicLong> e : next.entrySet()) {
            sum += lag(e.getKey(), e.getValue().get());
        }
        return sum;
    }

    private long lag(int partition, long nextOffset) {
        maybeRefresh();
        Long e = end.get(partition);
        return e == null || nextOffset < 0 ? 0 : Math.max(0, e - nextOffset);
    }

    private synchronized void maybeRefresh() {
        long now = time.getCurrentProcessingTime();
        if (fetching || now - endFetchedAt < refreshMs || next.isEmpty()) {
            return;
        }
        endFetchedAt = now;
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p : next.keySet()) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        fetching = true;
        admin().listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .whenComplete((offsets, error) -> {
                    if (error != null) {
                        LOG.debug("could not read end offsets of {}: {}", topic, error.toString()); // keep the last known
                    } else {
                        offsets.forEach((tp, info) -> end.put(tp.partition(), info.offset()));
                    }
                    synchronized (this) {
                        fetching = false;
                    }
                });
    }

    private Admin admin() {
        if (admin == null) {
            // The lag gauge may be read first by the TaskManager's metric query thread, whose context
            // class loader is Flink's: on a cluster where Kafka comes with the job jar only, Kafka's
            // config classes would then fail to load their default classes. The job's loader it is.
            try (TemporaryClassLoaderContext ignored = TemporaryClassLoaderContext.of(PartitionLag.class.getClassLoader())) {
                admin = kafka.client()
                        .withDefault(AdminClientConfig.CLIENT_ID_CONFIG, "streamtrain-batcher-lag")
                        .withDefault(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000)
                        .withDefault(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000)
                        .admin();
            }
        }
        return admin;
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
            admin = null;
        }
    }
}
