package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.LocalBundle;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.contract.RowCodec;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.Topics;
import io.streamtrain.testing.BrokerProcess;
import io.streamtrain.testing.KafkaFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --follow} over HTTP: ready once caught up with the topic, and its follower's state in
 * /metrics; not ready while Kafka is gone, ready again once caught up after it is back.
 */
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
        try (ScoringServer server = followingServer(bundle, kafka.connection(), topic)) {
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

    /**
     * Against a broker process the test kills: 503 once Kafka has not answered for longer than the
     * follower vouches for its lag (the rows served may be stale by any amount); 200 again once the
     * broker is back and the follower has caught up with what was written meanwhile.
     */
    @Test
    void readyTurns503WhenTheBrokerIsGoneAndBackTo200OnceCaughtUp() throws Exception {
        Path bundle = TestBundles.write(dir, "bundle", TestTables.info("fm", 4), 100);
        String topic = "serve-ready-" + System.nanoTime();
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"))) {
            Topics.ensure(broker.connection(), Map.of(topic, 1));
            commit(broker, topic, 1f);
            try (ScoringServer server = followingServer(bundle, broker.connection(), topic)) {
                URI base = URI.create("http://127.0.0.1:" + server.port());
                HttpClient http = HttpClient.newHttpClient();
                awaitReady(http, base, 200, Duration.ofSeconds(60), "ready once caught up");

                broker.kill();
                long killed = System.nanoTime();
                HttpResponse<String> notReady = awaitReady(http, base, 503, Duration.ofSeconds(60), "not ready with the broker gone");
                assertTrue(System.nanoTime() - killed >= ModelFollower.LAG_VALID.toNanos() - Duration.ofSeconds(2).toNanos(),
                        "the last lag Kafka confirmed still counts for a while: " + notReady.body());
                assertTrue(notReady.body().contains("not known"), notReady.body());
                assertEquals(200, get(http, base, "/health/live").statusCode(), "alive all along: it serves the rows it has");

                broker.restart();
                commit(broker, topic, 2f);
                ModelFollower follower = server.model().follower().orElseThrow();
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (follower.updatesApplied() < 2) {
                    assertTrue(System.nanoTime() < deadline, "the update written after the restart was not applied: " + follower.status());
                    Thread.sleep(100);
                }
                awaitReady(http, base, 200, Duration.ofSeconds(30), "ready again once the broker is back and caught up");
            }
        }
    }

    private static HttpResponse<String> awaitReady(HttpClient http, URI base, int status, Duration within, String what) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        HttpResponse<String> r;
        while ((r = get(http, base, "/health/ready")).statusCode() != status) {
            assertTrue(System.nanoTime() < deadline, what + ": still " + r.statusCode() + " after " + within + ": " + r.body());
            Thread.sleep(100);
        }
        return r;
    }

    private static void commit(BrokerProcess broker, String topic, float v) {
        try (KafkaProducer<byte[], byte[]> tx = broker.connection().client().idempotent()
                .require(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx").producer()) {
            tx.initTransactions();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, RowCodec.key(TestTables.key(3)), RowCodec.value(row(v))));
            tx.commitTransaction();
        }
    }

    private static float[] row(float v) {
        return new float[] {v, v + 1, v + 2, v + 3, v + 4};
    }

    /** A server following {@code topic} with ready at most 0 records behind. */
    private ScoringServer followingServer(Path bundle, KafkaConnection connection, String topic) throws Exception {
        ScoringServer.Settings settings = new ScoringServer.Settings("127.0.0.1", 0, 2, 1 << 16, 100, 100,
                Duration.ofSeconds(10), 0, Duration.ofSeconds(60), null);
        ServedModel.Follow follow = new ServedModel.Follow(connection, topic);
        return new ScoringServer(settings, ServedModel.following(LocalBundle.of(bundle), dir.resolve("store"), follow),
                d -> ServedModel.following(LocalBundle.of(d), dir.resolve("store-" + d.getFileName()), follow));
    }

    private static HttpResponse<String> get(HttpClient http, URI base, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
