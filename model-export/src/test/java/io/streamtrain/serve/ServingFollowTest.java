package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.contract.RowCodec;
import io.streamtrain.testing.KafkaFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve --follow} over HTTP: ready once caught up with the topic, and its follower's state in /metrics. */
class ServingFollowTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final KafkaFixture kafka = KafkaFixture.shared();

    @TempDir
    Path dir;

    @Test
    void readyOnceCaughtUpWithTheModelUpdates() throws Exception {
        Path bundle = TestBundles.write(dir, "bundle", TestTables.info("fm", 4), 100);
        String topic = "serve-follow-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> tx = kafka.transactionalProducer(topic + "-tx")) {
            tx.initTransactions();
            tx.beginTransaction();
            for (int i = 0; i < 50; i++) {
                tx.send(new ProducerRecord<>(topic, RowCodec.key(TestTables.key(i)), RowCodec.value(new float[] {i, 1, 2, 3, 4})));
            }
            tx.commitTransaction();
        }
        ScoringServer.Settings settings = new ScoringServer.Settings("127.0.0.1", 0, 2, 1 << 16, 100, 100,
                Duration.ofSeconds(10), 0, Duration.ofSeconds(60), null);
        ServedModel.Follow follow = new ServedModel.Follow(kafka.connection(), topic);
        try (ScoringServer server = new ScoringServer(settings, ServedModel.following(bundle, dir.resolve("store"), follow),
                d -> ServedModel.following(d, dir.resolve("store-" + d.getFileName()), follow))) {
            URI base = URI.create("http://127.0.0.1:" + server.port());
            HttpClient http = HttpClient.newHttpClient();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            HttpResponse<String> ready;
            while ((ready = get(http, base, "/health/ready")).statusCode() != 200) {
                assertEquals(503, ready.statusCode(), ready.body());
                assertTrue(System.nanoTime() < deadline, "not ready within 60 s: " + ready.body());
                Thread.sleep(50);
            }
            JsonNode health = JSON.readTree(ready.body());
            assertEquals(50, health.get("follow").get("updatesApplied").asLong(), ready.body());
            assertEquals(0, health.get("follow").get("lag").asLong(), ready.body());
            String metrics = get(http, base, "/metrics").body();
            assertEquals(1, ScoringServerTest.metric(metrics, "streamtrain_serve_follow_caught_up"), metrics);
            assertEquals(0, ScoringServerTest.metric(metrics, "streamtrain_serve_follow_lag_records"), metrics);
            assertEquals(0, ScoringServerTest.metric(metrics, "streamtrain_serve_follow_failed"), metrics);
            assertEquals(50, ScoringServerTest.metric(metrics, "streamtrain_serve_follow_updates_applied"), metrics);
            assertTrue(ScoringServerTest.metric(metrics, "streamtrain_serve_follow_freshness_seconds{quantile=\"0.99\",}") >= 0, metrics);
            assertTrue(ScoringServerTest.metric(metrics, "streamtrain_serve_follow_last_applied_timestamp_seconds") > 0, metrics);
            assertEquals(200, get(http, base, "/v2/health/ready").statusCode());
        }
    }

    private static HttpResponse<String> get(HttpClient http, URI base, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
