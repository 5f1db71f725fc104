package io.streamtrain.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.schema.TrainingMetricsCodec;
import io.streamtrain.testing.KafkaFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The dashboard's server follows a real metrics topic (created after it started) and serves the page and the timeline's JSON. */
class DashboardServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final KafkaFixture kafka = KafkaFixture.shared();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void servesThePageAndTheTimelineOfATopicThatAppearsLater() throws Exception {
        String topic = "dashboard-" + System.nanoTime() + ".metrics";
        try (Dashboard dashboard = Dashboard.start(kafka.connection(), topic, 0)) {
            assertEquals("waiting for the topic", get(dashboard, "api/timeline").get("status").asText());
            kafka.createTopic(topic, 1);
            TrainingMetricsCodec codec = new TrainingMetricsCodec();
            try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
                for (TrainingMetrics m : RunTimelineTest.run()) {
                    producer.send(new ProducerRecord<>(topic, codec.encode(m)));
                }
                producer.send(new ProducerRecord<>(topic, "not a metrics record".getBytes(StandardCharsets.UTF_8)));
            }
            JsonNode all = awaitRecords(dashboard, RunTimelineTest.run().size() + 1);
            assertEquals("following", all.get("status").asText());
            assertEquals(1, all.get("unreadable").asLong());
            assertEquals(5, all.get("seconds").asLong());
            assertEquals(RunTimelineTest.T0 + 0, all.get("startMs").asLong(), "the earliest record, though it arrived last");
            assertEquals(ReportWriter.SERIES.size(), all.get("series").size());
            assertEquals(5, all.get("points").size());
            assertEquals(1 + ReportWriter.SERIES.size(), all.get("points").get(0).size(), "second, then one value per series");
            assertTrue(all.get("points").get(0).get(3).isNull(), "no AUC in second 0: null, not NaN");
            JsonNode now = all.get("now");
            assertEquals(2940, now.get("examples").asLong());
            assertEquals(3, now.get("checkpoints").asLong());
            assertEquals(1, now.get("rescales").asLong());
            assertEquals(1, now.get("recoveries").asLong());
            assertEquals(120, now.get("staleness-p99").asDouble());
            assertEquals((0.60 * 300 + 0.80 * 40) / 340, now.get("auc").asDouble(), 1e-12, "latest windows, weighted by size");
            assertEquals(50, now.get("lag").asDouble(), "the batcher's latest report by time, not by arrival");
            assertEquals((0 + 1_000 + 1_500 + 400) / 4.0, now.get("examples-per-second").asDouble(), 1e-9,
                    "seconds 0-3, before the newest");

            JsonNode tail = get(dashboard, "api/timeline?from=3");
            assertEquals(2, tail.get("points").size(), "seconds 3 and 4");
            assertEquals(3, tail.get("points").get(0).get(0).asLong());
            assertTrue(tail.get("markers").size() > 0 && tail.get("markers").size() < all.get("markers").size());

            String page = text(dashboard, "");
            assertTrue(page.contains("<script src=\"dashboard.js\"></script>"), page);
            String script = text(dashboard, "dashboard.js");
            assertTrue(script.contains("api/timeline"), "the page polls the timeline");
            for (String asset : new String[] {page, script}) {
                assertFalse(asset.contains("https:") || asset.replace("http://www.w3.org/2000/svg", "").contains("http:"),
                        "no external assets (only the SVG namespace URI)");
            }
            HttpResponse<String> missing = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + "nope")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, missing.statusCode());
        }
    }

    private JsonNode awaitRecords(Dashboard dashboard, long records) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = get(dashboard, "api/timeline");
            if (last.get("records").asLong() >= records) {
                return last;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the dashboard did not read " + records + " records within 60 s: " + last);
    }

    private JsonNode get(Dashboard dashboard, String path) throws Exception {
        return JSON.readTree(text(dashboard, path));
    }

    private String text(Dashboard dashboard, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }
}
