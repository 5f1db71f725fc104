package io.streamtrain.train.batch;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes idle cuts to the cut log (idempotent, acknowledged by all in-sync replicas) without ever
 * waiting for the broker on the task thread: the acknowledgement comes back as a mail. A cut that
 * cannot be written is counted and logged once; its seal then waits for a checkpoint, as without a
 * cut log.
 */
final class CutWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CutWriter.class);
    /** A send waits on the task thread only for the topic's metadata, fetched when it opens. */
    private static final int MAX_BLOCK_MS = 2000;

    /** Runs on the task thread once the broker has the cut, at {@code logOffset} of the cuts topic. */
    interface Logged {
        void cut(int key, Cut cut, long logOffset);
    }

    private final CutLog log;
    private final KafkaProducer<byte[], byte[]> producer;
    private final MailboxExecutor mailbox;
    private final Logged logged;
    private final Counter cutsLogged;
    private final Counter failures;
    private boolean failureLogged;

    private CutWriter(CutLog log, KafkaProducer<byte[], byte[]> producer, MailboxExecutor mailbox, Logged logged, MetricGroup group) {
        this.log = log;
        this.producer = producer;
        this.mailbox = mailbox;
        this.logged = logged;
        this.cutsLogged = group.counter("cutsLogged");
        this.failures = group.counter("cutLogFailures");
    }

    static CutWriter open(CutLog log, MailboxExecutor mailbox, MetricGroup batcherGroup, Logged logged, String clientId) {
        KafkaProducer<byte[], byte[]> producer = log.kafka().client()
                .idempotent()
                .withDefault(ProducerConfig.CLIENT_ID_CONFIG, clientId)
                .withDefault(ProducerConfig.LINGER_MS_CONFIG, 0)
                .withDefault(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS)
                .producer();
        CutWriter writer = new CutWriter(log, producer, mailbox, logged, batcherGroup);
        try {
            producer.partitionsFor(log.topic());
        } catch (KafkaException e) {
            writer.failed(e); // the sends will tell whether it lasts
        }
        return writer;
    }

    /** Sends {@code cut} of partition key {@code key}; {@link Logged} hears when the broker has it. */
    void send(int key, Cut cut) {
        var record = new ProducerRecord<byte[], byte[]>(log.topic(), log.partitionOf(cut.partition()), null, cut.toBytes());
        try {
            producer.send(record, (metadata, e) -> handBack(e == null
                    ? () -> {
                        cutsLogged.inc();
                        logged.cut(key, cut, metadata.offset());
                    }
                    : () -> failed(e)));
        } catch (KafkaException e) {
            failed(e);
        }
    }

    private void handBack(Runnable onTaskThread) {
        try {
            mailbox.execute(onTaskThread::run, "cut log acknowledgement");
        } catch (RejectedExecutionException | IllegalStateException e) {
            // the task is closing: the cut's seal is in its state or gone with it
        }
    }

    private void failed(Exception e) {
        failures.inc();
        if (!failureLogged) {
            failureLogged = true;
            LOG.warn("cannot write to the cuts topic {} ({}): idle batches wait for a checkpoint instead"
                    + " (counted in batcher.cutLogFailures; logged once)", log.topic(), e.toString());
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(1));
    }
}
