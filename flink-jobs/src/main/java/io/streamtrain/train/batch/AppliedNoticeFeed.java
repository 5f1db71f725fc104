package io.streamtrain.train.batch;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaOutage;
import io.streamtrain.ps.message.PushApplied;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the PS's applied topic ({@link PushApplied}) on a thread of its own, from the topic's end
 * (only this run's batches count), and hands the notices to the task thread through its mailbox:
 * the task thread never waits in a Kafka poll. At most one hand-over mail is pending at a time; the
 * notices wait in a queue until the task takes them.
 */
final class AppliedNoticeFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AppliedNoticeFeed.class);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final MailboxExecutor mailbox;
    private final Runnable onNotices;
    private final ConcurrentLinkedQueue<PushApplied> notices = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean handOverPending = new AtomicBoolean();
    private final Thread thread;
    private volatile boolean closed;
    private volatile String failure;
    /** The topic to assign first, when Kafka was unreachable at the start; null once assigned. */
    private String topic;

    private AppliedNoticeFeed(KafkaConsumer<byte[], byte[]> consumer, MailboxExecutor mailbox, Runnable onNotices, String name) {
        this.consumer = consumer;
        this.mailbox = mailbox;
        this.onNotices = onNotices;
        this.thread = new Thread(this::follow, name);
        thread.setDaemon(true);
    }

    /**
     * Starts following {@code topic}; {@code onNotices} runs on the task thread (as a mail) when
     * notices have arrived. Throws {@link KafkaException} when the topic cannot be followed (it
     * does not exist, or the job may not read it). When Kafka is unreachable (a task restarted in
     * a broker outage) the feed's thread keeps trying, and notices count from when it got there.
     */
    static AppliedNoticeFeed start(KafkaConnection kafka, String topic, MailboxExecutor mailbox, Runnable onNotices,
                                   String threadName) {
        // A fetch returns as soon as a notice is there; while none is, the broker holds it for the
        // poll's length rather than this thread asking again every few milliseconds.
        KafkaConsumer<byte[], byte[]> consumer = kafka.client()
                .withDefault(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) POLL_TIMEOUT.toMillis())
                .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-batcher-credits")
                .consumer();
        String pending = null;
        try {
            assignAtEnd(consumer, topic);
        } catch (KafkaException e) {
            if (!KafkaOutage.isOutage(e)) {
                consumer.close(Duration.ZERO);
                throw e;
            }
            LOG.warn("Kafka unreachable while starting to follow {} ({}); trying again in the background", topic, e.toString());
            pending = topic;
        }
        AppliedNoticeFeed feed = new AppliedNoticeFeed(consumer, mailbox, onNotices, threadName);
        feed.topic = pending;
        feed.thread.start();
        return feed;
    }

    /** Assigns every partition of {@code topic} at its end. */
    private static void assignAtEnd(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, REQUEST_TIMEOUT);
        if (partitions == null || partitions.isEmpty()) {
            throw new KafkaException("topic " + topic + " does not exist");
        }
        List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(assigned);
        consumer.seekToEnd(assigned);
        assigned.forEach(tp -> consumer.position(tp, REQUEST_TIMEOUT));
    }

    /** Passes the notices received so far to {@code sink}, on the task thread; returns how many. */
    int drainTo(Consumer<PushApplied> sink) {
        int n = 0;
        for (PushApplied notice; (notice = notices.poll()) != null; n++) {
            sink.accept(notice);
        }
        return n;
    }

    /** Why the feed stopped, or null while it runs. */
    String failure() {
        return failure;
    }

    private void follow() {
        try {
            KafkaOutage outage = KafkaOutage.endless("batch flow control");
            while (!closed && topic != null) {
                try {
                    assignAtEnd(consumer, topic);
                    outage.reachable();
                    topic = null;
                } catch (KafkaException e) {
                    outage.failed("starting to follow " + topic, e);
                    Thread.sleep(outage.backoffMillis());
                }
            }
            while (!closed) {
                boolean any = false;
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL_TIMEOUT)) {
                    PushApplied notice = PushApplied.fromBytes(r.value());
                    if (notice != null) {
                        notices.add(notice);
                        any = true;
                    }
                }
                if (any) {
                    handOver();
                }
            }
        } catch (WakeupException | InterruptedException e) {
            // closed
        } catch (KafkaException e) {
            failure = e.toString();
            handOver(); // a task waiting for a credit learns that none will come
        } finally {
            consumer.close(Duration.ofSeconds(1));
        }
    }

    private void handOver() {
        if (handOverPending.compareAndSet(false, true)) {
            try {
                mailbox.execute(() -> {
                    handOverPending.set(false);
                    onNotices.run();
                }, "applied notices");
            } catch (RejectedExecutionException | IllegalStateException e) {
                closed = true; // the task is shutting down: its mailbox takes no more mail
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("the applied-notice thread did not stop within 2 s");
        }
    }
}
