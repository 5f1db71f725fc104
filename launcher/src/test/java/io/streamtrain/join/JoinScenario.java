package io.streamtrain.join;

import io.streamtrain.ingest.format.FeatureHashing;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.Impression;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TestExamples;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Future;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Impression and click events for the joiner tests, and the join computed independently of the
 * job: a sequential pass over each id's events in log order, applying the rules of the join
 * (first impression per id wins; each click on its own: before the impression → without
 * impression, more than the window after → outside the window, a second one inside → duplicate).
 * Event times run out of order by less than {@link #MAX_DISORDER_MS}, so with a larger watermark
 * delay nothing is late and the result does not depend on how the job interleaves its inputs.
 */
final class JoinScenario {
    static final long MAX_DISORDER_MS = 2_000;
    static final long BASE = 1_700_000_000_000L;

    record Event(String id, long time, byte[] value) {}

    final List<Event> impressions = new ArrayList<>();
    final List<Event> clicks = new ArrayList<>();
    final Map<String, Impression> firstImpression = new LinkedHashMap<>();
    int garbagePerTopic;

    private final AvroCodec<Impression> impressionCodec = AvroCodec.of(Impression.class);
    private final AvroCodec<Click> clickCodec = AvroCodec.of(Click.class);

    /**
     * {@code n} impressions 50 ms apart (plus jitter), some duplicated; about 30% clicked with delays
     * up to 1.4 windows (so some fall outside), some clicked twice, some clicked before they were
     * shown; 40 clicks for ids never shown; {@code garbage} non-Avro records per topic.
     */
    static JoinScenario generate(long seed, int n, long windowMs, int garbage) {
        JoinScenario s = new JoinScenario();
        s.garbagePerTopic = garbage;
        Random r = new Random(seed);
        List<long[]> clickPlan = new ArrayList<>(); // {impression index or -1-ghost, click time, order key}
        for (int i = 0; i < n; i++) {
            long t = BASE + i * 50L + (long) (r.nextDouble() * MAX_DISORDER_MS);
            String id = "imp-" + seed + "-" + i;
            Map<String, String> context = Map.of("device", "d" + r.nextInt(3), "position", String.valueOf(r.nextInt(5)),
                    "hour", String.valueOf(r.nextInt(24)));
            Impression imp = new Impression(id, "u" + r.nextInt(200), "i" + r.nextInt(500), Instant.ofEpochMilli(t), context);
            s.addImpression(imp);
            if (r.nextDouble() < 0.02) { // a duplicate delivery a little later, same id, other time
                s.addImpression(new Impression(id, imp.getUserId(), imp.getItemId(), Instant.ofEpochMilli(t + 100), context));
            }
            double u = r.nextDouble();
            if (u < 0.30) {
                long click = t + (long) (r.nextDouble() * windowMs * 1.4);
                clickPlan.add(new long[] {i, click});
                if (r.nextDouble() < 0.1) {
                    clickPlan.add(new long[] {i, click + 1_000}); // double click
                }
            } else if (u < 0.32) {
                clickPlan.add(new long[] {i, t - 500}); // clicked before it was shown
            }
        }
        for (int g = 0; g < 40; g++) {
            clickPlan.add(new long[] {-1 - g, BASE + (long) (r.nextDouble() * n * 50L)});
        }
        // The clicks topic in click-time order, disordered by less than MAX_DISORDER_MS.
        List<long[]> ordered = new ArrayList<>();
        for (long[] c : clickPlan) {
            ordered.add(new long[] {c[0], c[1], c[1] + (long) (r.nextDouble() * MAX_DISORDER_MS)});
        }
        ordered.sort(Comparator.comparingLong(c -> c[2]));
        for (long[] c : ordered) {
            String id = c[0] >= 0 ? "imp-" + seed + "-" + c[0] : "ghost-" + seed + "-" + (-c[0] - 1);
            s.clicks.add(new Event(id, c[1], s.clickCodec.encode(new Click(id, Instant.ofEpochMilli(c[1])))));
        }
        return s;
    }

    void addImpression(Impression imp) {
        impressions.add(new Event(imp.getImpressionId(), imp.getEventTime().toEpochMilli(), impressionCodec.encode(imp)));
        firstImpression.putIfAbsent(imp.getImpressionId(), imp);
    }

    void addClick(String id, long time) {
        clicks.add(new Event(id, time, clickCodec.encode(new Click(id, Instant.ofEpochMilli(time)))));
    }

    /** The expected join: labels by impression id, and dead-letter counts by reason. */
    record Expected(Map<String, Float> labels, Map<String, Long> deadLetters) {
        long positives() {
            return labels.values().stream().filter(l -> l == 1f).count();
        }
    }

    Expected expected(long windowMs) {
        Map<String, Float> labels = new LinkedHashMap<>();
        firstImpression.keySet().forEach(id -> labels.put(id, 0f));
        Map<String, Long> dead = new HashMap<>();
        for (Event c : clicks) {
            Impression imp = firstImpression.get(c.id());
            long delay = imp == null ? -1 : c.time() - imp.getEventTime().toEpochMilli();
            if (imp == null || delay < 0) {
                dead.merge("click-without-impression", 1L, Long::sum);
            } else if (delay > windowMs) {
                dead.merge("click-outside-window", 1L, Long::sum);
            } else {
                labels.put(c.id(), 1f); // a second click inside the window is a dropped duplicate
            }
        }
        if (garbagePerTopic > 0) {
            dead.put("not-avro", 2L * garbagePerTopic);
        }
        return new Expected(labels, dead);
    }

    /** Writes both topics, keyed by impression id (so an id's events share a partition), and waits for every ack. */
    void produce(KafkaProducer<byte[], byte[]> producer, String impressionsTopic, String clicksTopic) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (Event e : impressions) {
            acks.add(producer.send(new ProducerRecord<>(impressionsTopic, key(e.id()), e.value())));
        }
        for (Event e : clicks) {
            acks.add(producer.send(new ProducerRecord<>(clicksTopic, key(e.id()), e.value())));
        }
        for (int g = 0; g < garbagePerTopic; g++) {
            acks.add(producer.send(new ProducerRecord<>(impressionsTopic, ("not an impression " + g).getBytes(StandardCharsets.UTF_8))));
            acks.add(producer.send(new ProducerRecord<>(clicksTopic, ("not a click " + g).getBytes(StandardCharsets.UTF_8))));
        }
        producer.flush();
        for (Future<RecordMetadata> f : acks) {
            f.get();
        }
    }

    /**
     * A join of {@code T.impressions} and {@code T.clicks} into {@code T.out} with this scenario's
     * disorder allowed for, no idle timeout (every partition has events).
     */
    static Configuration job(KafkaFixture kafka, String t, long windowMs) {
        Configuration conf = TestExamples.connect(new Configuration(), kafka); // the joiner's Kafka settings are the training job's
        conf.set(JoinOptions.IMPRESSIONS_TOPIC, t + ".impressions");
        conf.set(JoinOptions.CLICKS_TOPIC, t + ".clicks");
        conf.set(JoinOptions.OUT_TOPIC, t + ".out");
        conf.set(JoinOptions.NAME, t);
        conf.set(JoinOptions.WINDOW, Duration.ofMillis(windowMs));
        conf.set(JoinOptions.OUT_OF_ORDERNESS, Duration.ofMillis(MAX_DISORDER_MS * 2));
        conf.set(JoinOptions.IDLE_TIMEOUT, Duration.ZERO);
        return conf;
    }

    /** The built-in impressions mapping, spelled out with the hash directly. */
    static List<Feature> impressionsMappingFeatures(Impression imp) {
        String[] values = {imp.getUserId(), imp.getItemId(), imp.getContext().get("device"), imp.getContext().get("position"),
                imp.getContext().get("hour")};
        Feature[] features = new Feature[values.length];
        for (int f = 0; f < values.length; f++) {
            features[f] = new Feature(f, FeatureHashing.id(f, values[f], 0, values[f].length(), 24), 1f);
        }
        return List.of(features);
    }

    static byte[] key(String id) {
        return id.getBytes(StandardCharsets.UTF_8);
    }
}
