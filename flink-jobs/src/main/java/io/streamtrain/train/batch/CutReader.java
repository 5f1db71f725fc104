package io.streamtrain.train.batch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads back the idle cuts a failed attempt recorded, which a replay must cut at again. The end
 * of each cuts partition is fixed once, when the batcher opens, by a <em>fence</em>: a record this
 * reader writes and waits for. Kafka shows a consumer only what all in-sync replicas hold, so a
 * cut the failed attempt sent just before it died may still be invisible at the partition's end
 * offset and appear later, where a second replay would find it although the first did not
 * follow it. Every record before the acknowledged fence is visible; cuts after it are this
 * attempt's own.
 */
final class CutReader implements AutoCloseable {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(200);
    /** A replay that cannot read its cuts must not guess: the task fails and restarts. */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final CutLog log;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<TopicPartition, Long> end;

    private CutReader(CutLog log, KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        this.log = log;
        this.consumer = consumer;
        this.end = end;
    }

    static CutReader open(CutLog log, int cutsPartitions, String clientId) {
        KafkaConsumer<byte[], byte[]> consumer = log.kafka().client()
                .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, clientId)
                .require(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")
                .consumer();
        try {
            return new CutReader(log, consumer, fence(log, cutsPartitions, clientId));
        } catch (RuntimeException e) {
            consumer.close(Duration.ZERO);
            throw new IllegalStateException("cannot fence the cuts topic " + log.topic()
                    + ", which a replay's batches depend on: " + e.getMessage(), e);
        }
    }

    /** Writes a fence to each cuts partition and returns where each landed: the ends to read to. */
    private static Map<TopicPartition, Long> fence(CutLog log, int cutsPartitions, String clientId) {
        try (KafkaProducer<byte[], byte[]> producer = log.kafka().client()
                .idempotent()
                .withDefault(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-fence")
                .withDefault(ProducerConfig.LINGER_MS_CONFIG, 0)
                .producer()) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int p = 0; p < cutsPartitions; p++) {
                sent.add(producer.send(new ProducerRecord<>(log.topic(), p, null, Cut.fence())));
            }
            Map<TopicPartition, Long> end = new HashMap<>();
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata m = f.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                end.put(new TopicPartition(m.topic(), m.partition()), m.offset());
            }
            return end;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().toString(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no acknowledgement within " + REQUEST_TIMEOUT.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * The recorded cuts of {@code sourcePartition} with sequence numbers from {@code fromSeq}, from
     * offset {@code from} of its cuts partition to the end taken at open; per sequence number the
     * first recorded (as the PS keeps the first push of a batch).
     */
    NavigableMap<Long, Cut> recorded(int sourcePartition, long from, long fromSeq) {
        TopicPartition tp = new TopicPartition(log.topic(), log.partitionOf(sourcePartition));
        long to = end.getOrDefault(tp, 0L);
        NavigableMap<Long, Cut> cuts = new TreeMap<>();
        if (from >= to) {
            return cuts;
        }
        consumer.assign(List.of(tp));
        consumer.seek(tp, from);
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (consumer.position(tp, REQUEST_TIMEOUT) < to) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                if (r.offset() >= to) {
                    break;
                }
                if (Cut.isFence(r.value())) {
                    continue;
                }
                Cut cut = Cut.fromBytes(r.value());
                if (cut.partition() == sourcePartition && cut.seq() >= fromSeq) {
                    cuts.putIfAbsent(cut.seq(), cut);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("could not read " + tp + " from offset " + from + " to " + to
                        + " within " + PATIENCE.toSeconds() + " s: partition " + sourcePartition + "'s replay depends on it");
            }
        }
        return cuts;
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(1));
    }
}
