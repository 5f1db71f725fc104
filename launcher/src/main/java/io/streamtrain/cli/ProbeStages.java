package io.streamtrain.cli;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.message.PushCodec;
import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Follows probe records on their way through the training loop, from outside the job: their pushes
 * on the feedback topic (which carry when the batcher cut the batch, sent its pulls, and when the PS
 * answered them; the record's timestamp is when the worker pushed) and their rows' first update on
 * the model-updates topic (its timestamp is when the PS applied the push). With the bench's own
 * send, acknowledgement and served times that splits each probe's freshness into {@link Stage}s.
 */
final class ProbeStages implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(100);

    /** The stages of a probe's way, in order; each ends at its own time stamp. */
    enum Stage {
        PRODUCE("send to Kafka's ack (producer linger)"),
        BATCH("acked to its batch cut (source read, batch filling, held behind a seal)"),
        CREDIT("cut to pulls sent (flow control)"),
        PULL("pulls sent to the PS's answer"),
        TRAIN("PS's answer to the worker's push (rows back, training)"),
        FEEDBACK("pushed to applied by the PS (feedback topic, PS queue)"),
        SERVE("applied to in the serving store (updates topic, follower)");

        final String meaning;

        Stage(String meaning) {
            this.meaning = meaning;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One probe's time stamps (wall-clock ms), 0 while not seen. */
    static final class Trail {
        volatile long sent;
        volatile long acked;
        volatile long cut;
        volatile long pullsSent;
        volatile long pulled;
        volatile long pushed;
        volatile long applied;
        volatile long served;

        /** Each stage's ms, in {@link Stage} order; null unless every stamp was seen. */
        long[] stages() {
            long[] at = {sent, acked, cut, pullsSent, pulled, pushed, applied, served};
            for (long t : at) {
                if (t == 0) {
                    return null;
                }
            }
            long[] ms = new long[at.length - 1];
            for (int i = 0; i < ms.length; i++) {
                ms[i] = Math.max(0, at[i + 1] - at[i]);
            }
            return ms;
        }
    }

    private final int probeField;
    private final Map<Long, Trail> trails = new ConcurrentHashMap<>();
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String feedbackTopic;
    private final PushCodec codec = new PushCodec();
    private final Thread thread;
    private volatile boolean running = true;

    /** Starts following both topics from their current ends. */
    ProbeStages(KafkaConnection kafka, String feedbackTopic, String updatesTopic, int probeField) {
        this.probeField = probeField;
        this.feedbackTopic = feedbackTopic;
        this.consumer = kafka.client()
                .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-bench-probes")
                .consumer();
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : List.of(feedbackTopic, updatesTopic)) {
            consumer.partitionsFor(topic, Duration.ofSeconds(20)).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // settle the start now, before any probe is sent
        thread = new Thread(this::run, "bench-probe-stages");
        thread.setDaemon(true);
        thread.start();
    }

    /** The trail of the probe whose row key is {@code key}, created at its send. */
    Trail trail(long key) {
        return trails.computeIfAbsent(key, k -> new Trail());
    }

    private void run() {
        try {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    if (r.topic().equals(feedbackTopic)) {
                        pushed(r);
                    } else {
                        applied(r);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            System.err.println("freshness: following the probes' pushes and updates stopped: " + e);
        } finally {
            consumer.close(Duration.ofSeconds(1));
        }
    }

    /** The first push holding a probe's row gives its batch's stamps (a replay's repeat comes later). */
    private void pushed(ConsumerRecord<byte[], byte[]> r) {
        Push push;
        try {
            push = codec.decode(r.value());
        } catch (IOException e) {
            return;
        }
        for (long key : push.keys) {
            Trail t = FeatureKey.field(key) == probeField ? trails.get(key) : null;
            if (t != null && t.pushed == 0) {
                t.cut = push.cutAt;
                t.pullsSent = push.sentAt;
                t.pulled = push.pulledAt;
                t.pushed = r.timestamp();
            }
        }
    }

    private void applied(ConsumerRecord<byte[], byte[]> r) {
        long key;
        try {
            key = RowCodec.rowKey(r.key());
        } catch (RuntimeException e) {
            return;
        }
        Trail t = FeatureKey.field(key) == probeField ? trails.get(key) : null;
        if (t != null && t.applied == 0) {
            t.applied = r.timestamp();
        }
    }

    /**
     * Per stage over {@code measured} (probes with every stamp): the p50 and p99 of its ms, and
     * its mean over the slowest tenth of the probes by freshness, where the tail's time goes.
     */
    static List<String> table(List<Trail> measured) {
        List<long[]> all = new ArrayList<>();
        for (Trail t : measured) {
            long[] s = t.stages();
            if (s != null) {
                all.add(s);
            }
        }
        List<String> rows = new ArrayList<>();
        rows.add("| stage (" + all.size() + " probes) | p50 ms | p99 ms | mean ms over the slowest 10 % | what it is |");
        rows.add("|---|---|---|---|---|");
        List<long[]> slowest = slowestTenth(all);
        for (Stage stage : Stage.values()) {
            long[] ms = all.stream().mapToLong(s -> s[stage.ordinal()]).sorted().toArray();
            double tail = slowest.stream().mapToLong(s -> s[stage.ordinal()]).average().orElse(Double.NaN);
            rows.add(String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %s |", stage.label(), quantile(ms, 0.5), quantile(ms, 0.99), tail, stage.meaning));
        }
        return rows;
    }

    /** The stage holding most of the slowest tenth's time and its mean share, e.g. "batch 71 %". */
    static String tailStage(List<Trail> measured) {
        List<long[]> all = measured.stream().map(Trail::stages).filter(s -> s != null).toList();
        List<long[]> slowest = slowestTenth(all);
        if (slowest.isEmpty()) {
            return "-";
        }
        double[] sum = new double[Stage.values().length];
        for (long[] s : slowest) {
            for (int i = 0; i < s.length; i++) {
                sum[i] += s[i];
            }
        }
        int top = 0;
        for (int i = 1; i < sum.length; i++) {
            top = sum[i] > sum[top] ? i : top;
        }
        double total = Arrays.stream(sum).sum();
        return String.format(Locale.ROOT, "%s %.0f %%", Stage.values()[top].label(), total == 0 ? 0 : 100 * sum[top] / total);
    }

    private static List<long[]> slowestTenth(List<long[]> all) {
        List<long[]> byTotal = new ArrayList<>(all);
        byTotal.sort((a, b) -> Long.compare(Arrays.stream(b).sum(), Arrays.stream(a).sum()));
        return byTotal.subList(0, (byTotal.size() + 9) / 10);
    }

    /** The {@code q} quantile of ascending {@code sorted}, -1 if empty. */
    static long quantile(long[] sorted, double q) {
        return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(5_000);
    }
}
