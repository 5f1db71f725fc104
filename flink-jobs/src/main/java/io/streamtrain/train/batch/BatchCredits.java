package io.streamtrain.train.batch;

import io.streamtrain.ps.message.PushApplied;
import java.io.Serializable;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Properties;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Credit-based flow control for one batcher subtask: before it sends another batch, at most
 * {@code maxInFlight} of its batches may be pulled but not yet applied by the PS. The PS announces
 * the pushes it handles on the applied topic ({@link PushApplied}, counted per batch); a batch is
 * done when all its pushes (one per pull) are announced. Without this bound the PS answers pulls faster than it
 * applies pushes during a backlog, and gradients get seconds stale (docs/ARCHITECTURE.md,
 * "Staleness").
 *
 * <p>Only pacing depends on it, never the model. A wait goes on while notices keep arriving (the
 * PS is working, if slowly), and runs out after {@code maxWaitMs} without any: then one batch goes
 * past the bound, and after {@code maxInFlight} of them the bound is suspended, because under
 * aligned checkpoints the likely cause is a checkpoint: the PS, aligning barriers, holds its push
 * input until the batcher forwards its barrier, which it cannot do while it waits (see
 * {@link #awaitCredit}). (Under unaligned checkpoints, the job's default, nothing holds the PS back
 * for the batcher, and a wait runs out only in the PS's own pauses.) The bound holds again
 * at the batcher's next snapshot or at the next notice, whichever comes first: a notice means the
 * PS applies pushes, so nothing holds it up. From the batcher's snapshot to the next notice a wait
 * does not run out at all: the PS is then finishing its alignment and taking its own snapshot,
 * which end by themselves, and batches sent into that pause only queue behind it (more rate and a
 * lower p99 in three of four pairs: docs/benchmarks.md, 2026-12-07). (A fixed cap on each wait ran out whenever the PS
 * needed longer than it per batch, and the suspended bound then let thousands of pushes queue. And
 * until the next snapshot alone, the PS's own pauses, its write-backs and snapshots, suspended the
 * bound for most of every checkpoint interval: docs/benchmarks.md.)
 */
public final class BatchCredits implements Serializable, AutoCloseable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(BatchCredits.class);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    /** Batches remembered at most, as a multiple of the bound: notices lost to a sink hiccup must not pin credits. */
    private static final int REMEMBERED_FACTOR = 16;
    /** A wait ends after this long even while notices of other batches arrive (ours were lost). */
    private static final long HARD_CAP_MS = 2000;

    private final String bootstrapServers;
    private final String topic;
    private final int maxInFlight;
    private final long maxWaitMs;

    private transient KafkaConsumer<byte[], byte[]> consumer;
    /** (source partition, batch sequence) → pushes not yet announced, oldest first. */
    private transient LinkedHashMap<BatchId, int[]> inFlight;
    /**
     * Batches let past the bound since the last snapshot or notice, one per wait that ran out; at
     * maxInFlight the bound is lifted.
     */
    private transient int overdraft;
    /** The batcher's barrier has passed and no notice came since: the PS's snapshot, which ends by itself. */
    private transient boolean psSnapshotting;
    private transient Counter waitedMs;
    private transient Counter waitsRunOut;

    /**
     * @param maxInFlight batches per batcher subtask pulled but not yet applied; 0 turns flow control off
     * @param maxWaitMs the longest one wait for a credit may take
     */
    public BatchCredits(String bootstrapServers, String topic, int maxInFlight, long maxWaitMs) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.maxInFlight = maxInFlight;
        this.maxWaitMs = maxWaitMs;
    }

    /** Starts following the applied topic from its end: only this run's batches count. */
    public void open(MetricGroup batcherGroup) {
        inFlight = new LinkedHashMap<>();
        waitedMs = batcherGroup.counter("creditWaitMs");
        waitsRunOut = batcherGroup.counter("creditWaitsRunOut");
        batcherGroup.gauge("batchesInFlight", () -> inFlight == null ? 0 : inFlight.size());
        if (maxInFlight <= 0) {
            return;
        }
        try {
            consumer = newConsumer();
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, REQUEST_TIMEOUT);
            if (partitions == null || partitions.isEmpty()) {
                disable("topic " + topic + " does not exist");
                return;
            }
            List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(assigned);
            consumer.seekToEnd(assigned);
            assigned.forEach(tp -> consumer.position(tp, REQUEST_TIMEOUT));
        } catch (KafkaException e) {
            disable(e.toString());
        }
    }

    /** A batch went out with {@code pushes} pulls; it holds a credit until all its pushes are announced. */
    public void sent(int sourcePartition, long batchSeq, int pushes) {
        if (consumer == null || pushes == 0) {
            return;
        }
        inFlight.put(new BatchId(sourcePartition, batchSeq), new int[] {pushes});
        Iterator<BatchId> oldest = inFlight.keySet().iterator();
        while (inFlight.size() > maxInFlight * REMEMBERED_FACTOR) {
            oldest.next();
            oldest.remove();
        }
    }

    /**
     * Returns once fewer than {@code maxInFlight} batches (plus the overdraft) are in flight, or the
     * wait ran out: no notice at all for {@code maxWaitMs}, or none of ours for {@link #HARD_CAP_MS}.
     * A wait that runs out lets this one batch past the bound; after {@code maxInFlight} such batches
     * the bound is lifted. The likely cause is a checkpoint: the PS, aligning its barriers, holds up
     * every push, and so every notice, until this batcher forwards its barrier, which it reaches only
     * by handling the records before it. Batch by batch, a short wait gets it there. Any notice ends
     * the overdraft: the PS is applying pushes again (its own pause, a write-back or snapshot, is
     * over), and the batches let past must drain below the bound before the next one goes. Between
     * the batcher's snapshot and the next notice a wait ends only with a notice (or after
     * {@link #HARD_CAP_MS}): that pause is the PS's snapshot, not something the batcher must get past.
     */
    public void awaitCredit() {
        // Notices are read only when the credits are used up: a poll per batch cost a quarter of
        // the batcher thread in a profile, and a credit that is not short needs no news.
        if (consumer == null || inFlight.size() < maxInFlight + overdraft) {
            return;
        }
        drain(Duration.ZERO);
        if (inFlight.size() < maxInFlight + overdraft || overdraft >= maxInFlight) {
            return;
        }
        long start = System.currentTimeMillis();
        long lastNotice = start;
        while (consumer != null && inFlight.size() >= maxInFlight + overdraft) {
            long now = System.currentTimeMillis();
            long left = (psSnapshotting ? start + HARD_CAP_MS : Math.min(lastNotice + maxWaitMs, start + HARD_CAP_MS)) - now;
            if (left <= 0) {
                waitsRunOut.inc();
                overdraft++;
                break;
            }
            if (drain(Duration.ofMillis(left)) > 0) {
                lastNotice = System.currentTimeMillis();
            }
        }
        waitedMs.inc(System.currentTimeMillis() - start);
    }

    /**
     * The batcher's barrier has passed: a wait can no longer hold up this checkpoint's alignment, and
     * until the next notice the PS is snapshotting.
     */
    public void resume() {
        overdraft = 0;
        psSnapshotting = true;
    }

    /**
     * Reads the notices that arrived within {@code timeout}; returns how many. Any notice ends the
     * overdraft: the PS is applying pushes, so no alignment holds it up.
     */
    private int drain(Duration timeout) {
        int notices = 0;
        try {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
                PushApplied applied = PushApplied.fromBytes(r.value());
                if (applied == null) {
                    continue;
                }
                notices++;
                BatchId id = new BatchId(applied.sourcePartition, applied.batchSeq);
                int[] left = inFlight.get(id);
                if (left != null && (left[0] -= applied.pushes) <= 0) {
                    inFlight.remove(id);
                }
            }
        } catch (KafkaException e) {
            disable(e.toString());
        }
        if (notices > 0) {
            overdraft = 0;
            psSnapshotting = false;
        }
        return notices;
    }

    private void disable(String why) {
        LOG.warn("batch flow control off for this run (batches in flight unbounded): {}", why);
        close();
    }

    private KafkaConsumer<byte[], byte[]> newConsumer() {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.setProperty(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "5");
        p.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-batcher-credits");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void close() {
        if (consumer != null) {
            try {
                consumer.close(Duration.ofSeconds(1));
            } catch (KafkaException e) {
                LOG.debug("closing the credits consumer", e);
            }
            consumer = null;
        }
    }

    private record BatchId(int sourcePartition, long batchSeq) {}

    /** For tests: batches currently holding a credit. */
    int inFlight() {
        return inFlight.size();
    }
}
