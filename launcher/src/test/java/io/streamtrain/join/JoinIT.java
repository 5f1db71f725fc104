package io.streamtrain.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Impression;
import io.streamtrain.testing.KafkaFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The joiner against a real broker and a real MiniCluster, its output read read_committed and
 * compared with {@link JoinScenario}'s independent computation over the same events.
 */
class JoinIT {
    private static final long WINDOW_MS = 60_000;
    final KafkaFixture kafka = kafka();

    /** The broker this test runs against; a subclass runs it against another one (e.g. {@link KafkaFixture#secured()}). */
    KafkaFixture kafka() {
        return KafkaFixture.shared();
    }
    private final AvroCodec<Example> examples = AvroCodec.of(Example.class);
    private final AvroCodec<DeadLetter> deadLetters = AvroCodec.of(DeadLetter.class);

    @Test
    void labelsAndDeadLettersMatchAnIndependentJoinOfOutOfOrderEvents(@TempDir Path checkpoints) throws Exception {
        String t = "join-" + System.nanoTime();
        JoinScenario scenario = JoinScenario.generate(11, 2_000, WINDOW_MS, 5);
        produce(scenario, t, 4);

        JoinRun.Summary summary = JoinRun.run(settings(t, checkpoints, 2, 0, 1.0, true));
        System.err.println(summary.line());

        JoinScenario.Expected expected = scenario.expected(WINDOW_MS);
        Map<String, Example> out = readExamples(t + ".out");
        assertEquals(expected.labels().size(), out.size(), "one example per distinct impression");
        for (Map.Entry<String, Float> e : expected.labels().entrySet()) {
            Example ex = out.get(e.getKey());
            assertEquals(e.getValue(), ex.getLabel(), e.getKey());
            assertEquals(1f, ex.getSampleRate(), "no sampling");
            Impression imp = scenario.firstImpression.get(e.getKey());
            assertEquals(imp.getEventTime(), ex.getEventTime(), "the example happened when the impression did");
            assertEquals(JoinScenario.impressionsMappingFeatures(imp), ex.getFeatures(), "the built-in impressions mapping");
        }
        assertTrue(expected.positives() > 300, "the scenario has positives: " + expected.positives());
        assertEquals(expected.deadLetters(), deadLetterReasons(t + ".out.dlq"));
        assertEquals(scenario.impressions.size() + 5, summary.impressions(), summary.line());
    }

    @Test
    void noExampleIsLostOrDuplicatedAcrossAnInjectedFailure(@TempDir Path checkpoints) throws Exception {
        String t = "join-eo-" + System.nanoTime();
        JoinScenario scenario = JoinScenario.generate(23, 3_000, WINDOW_MS, 2);
        produce(scenario, t, 4);
        double rate = 0.3;

        // 500: each of the two subtasks handles far more than 2 x 500 events and timers, so the failure
        // fires even when the short bounded run ends before its first checkpoint completes.
        JoinRun.Summary summary = JoinRun.run(settings(t, checkpoints, 2, 500, rate, true));
        System.err.println(summary.line());
        // The failure does fire (the log shows InjectedFailure), but a run this short is often over
        // before its REST API reports the restart, so the count is not asserted here (known gap).

        JoinScenario.Expected expected = scenario.expected(WINDOW_MS);
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(t + ".out", true, Duration.ofSeconds(30));
        Map<String, Example> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Example e = examples.decode(r.value());
            assertNull(out.put(e.getId(), e), "duplicate example " + e.getId());
        }
        NegativeSampler sampler = new NegativeSampler(rate);
        long negativesExpected = 0;
        for (Map.Entry<String, Float> e : expected.labels().entrySet()) {
            Example ex = out.get(e.getKey());
            if (e.getValue() == 1f) {
                assertEquals(1f, ex.getLabel(), "every positive kept: " + e.getKey());
                assertEquals(1f, ex.getSampleRate());
            } else if (sampler.keep(e.getKey())) {
                negativesExpected++;
                assertEquals(0f, ex.getLabel(), e.getKey());
                assertEquals((float) rate, ex.getSampleRate(), "a kept negative records the rate");
            } else {
                assertFalse(out.containsKey(e.getKey()), "sampled out: " + e.getKey());
            }
        }
        long negatives = expected.labels().size() - expected.positives();
        assertEquals(expected.positives() + negativesExpected, out.size());
        assertTrue(Math.abs(negativesExpected - rate * negatives) < 4 * Math.sqrt(negatives * rate * (1 - rate)),
                "the hash keeps about the rate: " + negativesExpected + " of " + negatives);
        assertEquals(expected.deadLetters(), deadLetterReasons(t + ".out.dlq"), "dead letters exactly once too");
    }

    /**
     * Late events in a continuous join: a click inside the window that arrives after the window
     * closed, and an impression behind the watermark. Made deterministic by producing them only
     * after the job has committed the impression's 0.
     */
    @Test
    void lateClicksAndLateImpressionsAreDeadLettered(@TempDir Path checkpoints) throws Exception {
        String t = "join-late-" + System.nanoTime();
        JoinScenario early = new JoinScenario();
        long base = JoinScenario.BASE;
        early.addImpression(new Impression("x", "u1", "i1", java.time.Instant.ofEpochMilli(base), Map.of()));
        early.addImpression(new Impression("y", "u2", "i2", java.time.Instant.ofEpochMilli(base + 1_000), Map.of()));
        early.addClick("y", base + 2_000);
        // Both streams move event time far past x's window (60 s), so it closes with a 0.
        early.addImpression(new Impression("z", "u3", "i3", java.time.Instant.ofEpochMilli(base + 300_000), Map.of()));
        early.addClick("z", base + 300_500);
        produce(early, t, 1);

        CompletableFuture<JoinRun.Summary> run = CompletableFuture.supplyAsync(() -> {
            try {
                Configuration conf = settings(t, checkpoints, 1, 0, 1.0, false).conf();
                conf.set(JoinOptions.DEDUP_RETENTION, Duration.ofMinutes(30)); // x is remembered when its late click comes
                return JoinRun.run(new JoinRun.Settings(conf, checkpoints, 1, Duration.ofMillis(300), Duration.ofSeconds(15), true, System.err));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Map<String, Example> out = Map.of();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!out.containsKey("x") && System.nanoTime() < deadline && !run.isDone()) {
            Thread.sleep(500);
            out = readExamples(t + ".out");
        }
        assertEquals(0f, out.get("x").getLabel(), "x's window closed without a click");
        assertEquals(1f, out.get("y").getLabel());

        JoinScenario late = new JoinScenario();
        late.addClick("x", base + 10_000); // inside x's window, but after it closed
        late.addClick("y", base + 3_000); // y was clicked already: a duplicate, dropped
        late.addImpression(new Impression("w", "u4", "i4", java.time.Instant.ofEpochMilli(base + 5_000), Map.of()));
        late.addClick("v", base + 6_000); // behind the watermark, and no impression v was ever shown
        produce(late, t, 1);

        JoinRun.Summary summary = run.get(4, TimeUnit.MINUTES);
        System.err.println(summary.line());
        assertEquals(Map.of("late-click", 1L, "late-impression", 1L, "click-without-impression", 1L), deadLetterReasons(t + ".out.dlq"));
        Map<String, Example> finalOut = readExamples(t + ".out");
        assertEquals(Map.of("x", 0f, "y", 1f, "z", 1f), labels(finalOut), "late input changed no label; z's click joined");
    }

    private void produce(JoinScenario scenario, String t, int partitions) throws Exception {
        kafka.createTopic(t + ".impressions", partitions);
        kafka.createTopic(t + ".clicks", partitions);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            scenario.produce(producer, t + ".impressions", t + ".clicks");
        }
    }

    private JoinRun.Settings settings(String t, Path checkpoints, int parallelism, long failAfter, double sampling, boolean untilEnd) {
        Configuration conf = JoinScenario.job(kafka, t, WINDOW_MS);
        conf.set(JoinOptions.NEGATIVE_SAMPLING, sampling);
        conf.set(JoinOptions.UNTIL_END, untilEnd);
        conf.set(JoinOptions.INJECT_FAILURE_AFTER, failAfter);
        return new JoinRun.Settings(conf, checkpoints, parallelism, Duration.ofMillis(300), null, true, System.err);
    }

    private Map<String, Example> readExamples(String topic) throws Exception {
        Map<String, Example> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic, true, Duration.ofSeconds(30))) {
            Example e = examples.decode(r.value());
            assertEquals(e.getId(), new String(r.key(), StandardCharsets.UTF_8), "keyed by impression id");
            assertNull(out.put(e.getId(), e), "duplicate example " + e.getId());
        }
        return out;
    }

    private Map<String, Long> deadLetterReasons(String topic) throws Exception {
        Map<String, Long> reasons = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic, true, Duration.ofSeconds(30))) {
            reasons.merge(deadLetters.decode(r.value()).getReason(), 1L, Long::sum);
        }
        return reasons;
    }

    private static Map<String, Float> labels(Map<String, Example> out) {
        Map<String, Float> labels = new HashMap<>();
        out.forEach((id, e) -> labels.put(id, e.getLabel()));
        return labels;
    }
}
