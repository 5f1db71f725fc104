package io.streamtrain.ingest.synthetic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.Impression;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The synthetic event stream's properties, measured on the events it hands out. */
class SyntheticEventsTest {
    private static final long BASE = 1_700_000_000_000L;

    /** Events in delivery order. */
    private record Log(List<Object> events, SyntheticEvents.Stats stats) {
        List<Impression> impressions() {
            return events.stream().filter(Impression.class::isInstance).map(Impression.class::cast).toList();
        }

        List<Click> clicks() {
            return events.stream().filter(Click.class::isInstance).map(Click.class::cast).toList();
        }
    }

    private static Log run(SyntheticEvents generator) {
        List<Object> events = new ArrayList<>();
        SyntheticEvents.Stats stats = generator.generate(new SyntheticEvents.Sink() {
            @Override
            public void impression(Impression impression) {
                events.add(impression);
            }

            @Override
            public void click(Click click) {
                events.add(click);
            }
        });
        return new Log(events, stats);
    }

    @Test
    void recordsRunOutOfOrderByLessThanTheDisorderAndClicksMayPrecedeTheirImpression() {
        SyntheticEvents.Settings s = SyntheticEvents.Settings.defaults(20_000, BASE).withCtr(0.2)
                .withTiming(Duration.ofMillis(10), Duration.ofMinutes(1), Duration.ofSeconds(5), Duration.ofSeconds(3));
        Log log = run(new SyntheticEvents(s, 7));
        long disorder = s.disorder().toMillis();
        long maxImpression = 0;
        long maxClick = 0;
        long largestBackStep = 0;
        long clicksBeforeTheirImpression = 0;
        Map<String, Boolean> seen = new HashMap<>();
        for (Object e : log.events()) {
            if (e instanceof Impression i) {
                long t = i.getEventTime().toEpochMilli();
                largestBackStep = Math.max(largestBackStep, maxImpression - t);
                maxImpression = Math.max(maxImpression, t);
                seen.put(i.getImpressionId(), true);
            } else {
                Click c = (Click) e;
                long t = c.getEventTime().toEpochMilli();
                largestBackStep = Math.max(largestBackStep, maxClick - t);
                maxClick = Math.max(maxClick, t);
                if (!seen.containsKey(c.getImpressionId())) {
                    clicksBeforeTheirImpression++;
                }
            }
        }
        assertTrue(largestBackStep < disorder, "out of order by " + largestBackStep + " ms, disorder " + disorder);
        assertTrue(largestBackStep > disorder / 2, "and really out of order: " + largestBackStep);
        assertTrue(clicksBeforeTheirImpression > 0, "some clicks are delivered before their impression");
    }

    @Test
    void clickDelaysDuplicatesAndPopularityFollowTheSettings() {
        long n = 40_000;
        SyntheticEvents.Settings s = SyntheticEvents.Settings.defaults(n, BASE).withCtr(0.2).withRates(0.05, 0.02);
        Log log = run(new SyntheticEvents(s, 3));
        long windowMs = s.window().toMillis();

        Map<String, Impression> first = new LinkedHashMap<>();
        long duplicateImpressions = 0;
        Map<String, Long> users = new HashMap<>();
        for (Impression i : log.impressions()) {
            Impression earlier = first.putIfAbsent(i.getImpressionId(), i);
            if (earlier != null) {
                duplicateImpressions++;
                assertEquals(earlier, i, "a duplicate is a second delivery of the same record");
            } else {
                users.merge(i.getUserId(), 1L, Long::sum);
            }
        }
        assertEquals(n, first.size());
        assertEquals(log.stats().duplicateImpressions(), duplicateImpressions);
        assertNear(0.02 * n, duplicateImpressions, "duplicate impressions");

        Map<Click, Long> deliveries = new HashMap<>();
        long beyond = 0;
        double delaySum = 0;
        for (Click c : log.clicks()) {
            Impression i = first.get(c.getImpressionId());
            long delay = c.getEventTime().toEpochMilli() - i.getEventTime().toEpochMilli();
            assertTrue(delay >= 0 && delay <= 1.5 * windowMs + 1, "delay " + delay);
            if (deliveries.merge(c, 1L, Long::sum) == 1) {
                if (delay > windowMs) {
                    beyond++;
                } else {
                    delaySum += delay;
                }
            }
        }
        long clicks = deliveries.size();
        assertEquals(log.stats().clicks(), clicks);
        assertEquals(log.stats().clicksBeyondWindow(), beyond);
        assertNear(0.05 * clicks, beyond, "clicks beyond the window");
        assertNear(0.02 * clicks, log.clicks().size() - clicks, "duplicate clicks");
        double meanMs = s.meanClickDelay().toMillis();
        double truncatedMean = meanMs - windowMs * Math.exp(-windowMs / meanMs) / (1 - Math.exp(-windowMs / meanMs));
        assertEquals(truncatedMean, delaySum / (clicks - beyond), 0.05 * truncatedMean, "mean delay within the window");

        assertEquals(users.values().stream().mapToLong(Long::longValue).max().orElseThrow(), users.get("u0"),
                "u0 is the most popular user");
        double ratio = users.get("u0") / (double) users.get("u9");
        assertEquals(Math.pow(10, s.zipfExponent()), ratio, 0.35 * Math.pow(10, s.zipfExponent()), "Zipf popularity");
    }

    /** The planted model is what a trainer can learn: its probability ranks the joined labels well above chance. */
    @Test
    void thePlantedModelPredictsTheLabelsTheJoinerWillAssign(@TempDir Path dir) throws Exception {
        long n = 50_000;
        // 2 s between impressions: the stream covers every hour of the day, as the calibration assumes.
        SyntheticEvents.Settings s = SyntheticEvents.Settings.defaults(n, BASE)
                .withTiming(Duration.ofSeconds(2), Duration.ofMinutes(15), Duration.ofMinutes(1), Duration.ofSeconds(5));
        SyntheticEvents generator = new SyntheticEvents(s, 5);
        Log log = run(generator);
        Map<String, Impression> first = new LinkedHashMap<>();
        log.impressions().forEach(i -> first.putIfAbsent(i.getImpressionId(), i));
        Map<String, Boolean> clicked = new HashMap<>();
        for (Click c : log.clicks()) {
            long delay = c.getEventTime().toEpochMilli() - first.get(c.getImpressionId()).getEventTime().toEpochMilli();
            if (delay <= s.window().toMillis()) {
                clicked.put(c.getImpressionId(), true);
            }
        }
        double[] scores = new double[first.size()];
        float[] labels = new float[first.size()];
        int k = 0;
        for (Impression i : first.values()) {
            scores[k] = generator.model().probability(i);
            labels[k++] = clicked.containsKey(i.getImpressionId()) ? 1f : 0f;
        }
        double auc = Auc.of(scores, labels);
        assertTrue(auc > 0.7, "planted AUC " + auc);
        assertEquals(auc, log.stats().plantedAuc(), 1e-9, "the summary reports the same AUC");
        assertEquals(s.ctr() * (1 - s.beyondWindowRate()), clicked.size() / (double) n, 0.15 * s.ctr(), "CTR as planted");

        Path truth = dir.resolve("t.json");
        generator.writeTruth(truth);
        JsonNode json = new ObjectMapper().readTree(truth.toFile());
        assertEquals(generator.model().bias(), json.get("bias").asDouble(), 0);
        assertEquals(s.users(), json.get("userBias").size());
        assertEquals(s.items(), json.get("itemFactor").size());
        assertEquals(n, json.get("settings").get("impressions").asLong());
    }

    @Test
    void theStreamIsAFunctionOfTheSettingsAndTheSeed() {
        SyntheticEvents.Settings s = SyntheticEvents.Settings.defaults(3_000, BASE).withCtr(0.3);
        assertEquals(run(new SyntheticEvents(s, 1)).events(), run(new SyntheticEvents(s, 1)).events());
        assertNotEquals(run(new SyntheticEvents(s, 1)).events(), run(new SyntheticEvents(s, 2)).events());
    }

    private static void assertNear(double expected, double actual, String what) {
        double sigma = Math.sqrt(expected);
        assertTrue(Math.abs(actual - expected) < 4 * sigma + 1, what + ": " + actual + ", expected about " + expected);
    }
}
