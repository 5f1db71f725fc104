package io.streamtrain.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Impression;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.InputFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code join --input-format json}: impressions and clicks that a team's own producers wrote as
 * JSON objects are joined through the mapping (its id column is the impression id in both, its
 * time column the event time), with the same labels and features as {@link JoinScenario}'s
 * independent join of the same events; records that are not JSON or lack a field the mapping
 * reads are dead-lettered with the reason.
 */
class JoinUserFormatIT {
    private static final long WINDOW_MS = 60_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void jsonImpressionsAndClicksAreJoinedThroughTheMapping(@TempDir Path checkpoints) throws Exception {
        String t = "join-json-" + System.nanoTime();
        JoinScenario scenario = JoinScenario.generate(17, 1_500, WINDOW_MS, 0);
        kafka.createTopic(t + ".impressions", 2);
        kafka.createTopic(t + ".clicks", 2);
        AvroCodec<Impression> impressions = AvroCodec.of(Impression.class);
        AvroCodec<Click> clicks = AvroCodec.of(Click.class);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (JoinScenario.Event e : scenario.impressions) {
                send(producer, t + ".impressions", e.id(), json(impressions.decode(e.value())));
            }
            for (JoinScenario.Event e : scenario.clicks) {
                Click c = clicks.decode(e.value());
                send(producer, t + ".clicks", e.id(), JSON.writeValueAsBytes(
                        Map.of("impression_id", c.getImpressionId(), "event_time", c.getEventTime().toEpochMilli())));
            }
            send(producer, t + ".impressions", "bad-1", "{\"impression_id\": \"bad-1\",".getBytes(StandardCharsets.UTF_8));
            send(producer, t + ".impressions", "bad-2", JSON.writeValueAsBytes(Map.of("impression_id", "bad-2", "user_id", "u1",
                    "event_time", JoinScenario.BASE))); // no item_id, device, position, hour
            send(producer, t + ".clicks", "bad-3", JSON.writeValueAsBytes(Map.of("event_time", JoinScenario.BASE))); // no impression_id
            producer.flush();
        }

        Configuration conf = JoinScenario.job(kafka, t, WINDOW_MS);
        conf.set(JoinOptions.UNTIL_END, true);
        conf.set(JoinOptions.INPUT_FORMAT, InputFormat.JSON); // with the built-in impressions mapping
        JoinRun.Summary summary = JoinRun.run(new JoinRun.Settings(conf, checkpoints, 2, Duration.ofMillis(300), null, true, System.err));
        System.err.println(summary.line());

        JoinScenario.Expected expected = scenario.expected(WINDOW_MS);
        AvroCodec<Example> examples = AvroCodec.of(Example.class);
        Map<String, Example> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(t + ".out", true, Duration.ofSeconds(30))) {
            Example e = examples.decode(r.value());
            assertNull(out.put(e.getId(), e), "duplicate example " + e.getId());
        }
        assertEquals(expected.labels().size(), out.size(), "one example per distinct impression");
        for (Map.Entry<String, Float> e : expected.labels().entrySet()) {
            Example ex = out.get(e.getKey());
            assertEquals(e.getValue(), ex.getLabel(), e.getKey());
            Impression imp = scenario.firstImpression.get(e.getKey());
            assertEquals(imp.getEventTime(), ex.getEventTime(), "event time from the mapping's time column");
            assertEquals(JoinScenario.impressionsMappingFeatures(imp), ex.getFeatures(), "the built-in impressions mapping");
        }
        Map<String, Long> dead = new HashMap<>(expected.deadLetters());
        dead.put("unparsable", 1L);
        dead.put("missing-field", 2L);
        AvroCodec<DeadLetter> deadLetters = AvroCodec.of(DeadLetter.class);
        Map<String, Long> reasons = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(t + ".out.dlq", true, Duration.ofSeconds(30))) {
            reasons.merge(deadLetters.decode(r.value()).getReason(), 1L, Long::sum);
        }
        assertEquals(dead, reasons);
    }

    /** An impression as a team's producer might write it: flat JSON, the context keys at the top level. */
    private static byte[] json(Impression i) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("impression_id", i.getImpressionId());
        m.put("user_id", i.getUserId());
        m.put("item_id", i.getItemId());
        m.put("event_time", i.getEventTime().toEpochMilli());
        i.getContext().forEach((k, v) -> m.put(k.toString(), v.toString()));
        return JSON.writeValueAsBytes(m);
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key, byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(topic, JoinScenario.key(key), value)).get();
    }
}
