package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.RowCodec;
import io.streamtrain.contract.RowVersion;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.kafka.Topics;
import io.streamtrain.testing.BrokerProcess;
import io.streamtrain.testing.KafkaFixture;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --follow}: a serving store made from a bundle applies committed model updates
 * (never aborted ones), the bias included, and a restarted follower resumes from the offsets it
 * stored instead of reading the topic again.
 */
class ModelFollowerTest {
    private static final ModelInfo INFO = TestTables.info("fm", 4);
    private static final int WIDTH = 5;
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    final KafkaFixture kafka = kafka();

    /** The broker this test runs against; a subclass runs it against another one (e.g. {@link KafkaFixture#secured()}). */
    KafkaFixture kafka() {
        return KafkaFixture.shared();
    }

    @TempDir
    static Path dir;
    static Path bundle;

    @BeforeAll
    static void exportBundle() throws Exception {
        Path savepoint = TestTables.write(dir.resolve("savepoint"), INFO, 200);
        bundle = dir.resolve("bundle");
        BundleWriter.write(savepoint, INFO, ModelCard.FeatureMapping.of("libffm", 24), bundle, QUIET, 1000);
    }

    @Test
    void appliesCommittedUpdatesOnlyAndResumesAfterARestart() throws Exception {
        String topic = "updates-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        long existing = TestTables.key(7);
        long fresh = FeatureKey.of(3, 999_999);
        Path store = dir.resolve("store-" + topic);

        try (KafkaProducer<byte[], byte[]> tx = transactional(topic)) {
            tx.initTransactions();
            tx.beginTransaction();
            send(tx, topic, existing, row(1f));
            send(tx, topic, fresh, row(2f));
            send(tx, topic, existing, row(3f)); // the later update of the same row wins
            send(tx, topic, FeatureKey.BIAS, row(0.5f));
            tx.commitTransaction();
            tx.beginTransaction();
            send(tx, topic, fresh, row(-100f));
            tx.abortTransaction(); // a recovery took these back: never visible

            try (Bundle s = Bundle.openStore(bundle, store); ModelFollower follower = new ModelFollower(kafka.connection(), topic, s)) {
                await(follower::caughtUp, "caught up");
                assertEquals(3, follower.updatesApplied(), "distinct rows of the committed transaction");
                assertArrayEquals(row(3f), s.row(existing));
                assertArrayEquals(row(2f), s.row(fresh), "the aborted update is not applied");
                assertArrayEquals(row(0.5f), s.bias());
                assertArrayEquals(TestTables.weights(8, WIDTH), s.row(TestTables.key(8)), "rows without updates keep the bundle's values");
            }

            tx.beginTransaction();
            send(tx, topic, fresh, row(4f)); // while the server is down
            tx.commitTransaction();
        }

        try (Bundle s = Bundle.openStore(bundle, store); ModelFollower follower = new ModelFollower(kafka.connection(), topic, s)) {
            assertArrayEquals(row(3f), s.row(existing), "the store kept what it applied before the restart");
            await(follower::caughtUp, "caught up after the restart");
            assertEquals(1, follower.updatesApplied(), "only the update published while it was down is read again");
            assertArrayEquals(row(4f), s.row(fresh));
            assertArrayEquals(row(0.5f), s.bias());
            assertTrue(follower.status().get("freshnessP50Ms") != null, "freshness is measured: " + follower.status());
        }
    }

    /**
     * Versioned updates, published at once and repeated by a recovery: a row keeps its highest
     * version, neither moved back by an older or repeated record nor written twice, also after the
     * follower restarts.
     */
    @Test
    void versionedUpdatesNeverMoveARowBackNorApplyTwice() throws Exception {
        String topic = "updates-versioned-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        long a = TestTables.key(5);
        long b = FeatureKey.of(3, 888_888);
        Path store = dir.resolve("store-" + topic);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            try (Bundle s = Bundle.openStore(bundle, store); ModelFollower follower = new ModelFollower(kafka.connection(), topic, s)) {
                sendVersioned(producer, topic, a, row(2f), 2);
                await(() -> java.util.Arrays.equals(row(2f), s.row(a)), "version 2 applied");

                sendVersioned(producer, topic, a, row(1f), 1); // older: a recovery publishing again what it recomputed
                sendVersioned(producer, topic, a, row(2f), 2); // a repeat
                sendVersioned(producer, topic, b, row(7f), 1);
                await(() -> java.util.Arrays.equals(row(7f), s.row(b)), "the later record of another row applied");
                assertArrayEquals(row(2f), s.row(a), "never moved back to version 1");
                assertEquals(2, follower.updatesApplied(), "a at 2 and b at 1, each written once");
                assertEquals(2, follower.updatesSkipped(), "a's older and repeated records");

                sendVersioned(producer, topic, a, row(3f), 3);
                await(() -> java.util.Arrays.equals(row(3f), s.row(a)), "version 3 applied");
            }
            sendVersioned(producer, topic, a, row(2f), 2); // a repeat while the server is down
            try (Bundle s = Bundle.openStore(bundle, store); ModelFollower follower = new ModelFollower(kafka.connection(), topic, s)) {
                await(follower::caughtUp, "caught up after the restart");
                assertArrayEquals(row(3f), s.row(a), "the stored version outlives the restart");
                assertEquals(0, follower.updatesApplied());
                assertEquals(1, follower.updatesSkipped());
            }
        }
    }

    @Test
    void theUsersClientPropertiesReachTheFollowersConsumer() throws Exception {
        KafkaConnection bogus = new KafkaConnection(kafka.bootstrapServers(), Map.of("security.protocol", "BOGUS"));
        try (Bundle s = Bundle.openStore(bundle, dir.resolve("store-bogus"))) {
            KafkaException e = assertThrows(KafkaException.class, () -> new ModelFollower(bogus, "any", s).close());
            assertTrue(e.getMessage().contains("security.protocol") || String.valueOf(e.getCause()).contains("security.protocol"),
                    String.valueOf(e));
        }
    }

    /**
     * A broker killed with SIGKILL and started again on the same directory and port while the
     * follower runs: it waits, then applies the updates committed after the restart.
     */
    @Test
    void followsOnAcrossABrokerRestart() throws Exception {
        String topic = "updates-outage-" + System.nanoTime();
        long key = TestTables.key(9);
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka-" + topic))) {
            Topics.ensure(broker.connection(), Map.of(topic, 1));
            try (Bundle s = Bundle.openStore(bundle, dir.resolve("store-" + topic));
                    ModelFollower follower = new ModelFollower(broker.connection(), topic, s)) {
                commit(broker, topic, key, row(1f));
                await(() -> java.util.Arrays.equals(row(1f), s.row(key)), "applied before the outage");

                broker.kill();
                Thread.sleep(10_000);
                broker.restart();
                commit(broker, topic, key, row(2f));
                await(() -> java.util.Arrays.equals(row(2f), s.row(key)), "applied after the outage");
                assertEquals(null, follower.status().get("failure"), "the follower did not stop");
            }
        }
    }

    private static void commit(BrokerProcess broker, String topic, long key, float[] weights) {
        try (KafkaProducer<byte[], byte[]> tx = broker.connection().client().idempotent()
                .require(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx").producer()) {
            tx.initTransactions();
            tx.beginTransaction();
            send(tx, topic, key, weights);
            tx.commitTransaction();
        }
    }

    private static float[] row(float v) {
        float[] w = new float[WIDTH];
        for (int i = 0; i < WIDTH; i++) {
            w[i] = v + i;
        }
        return w;
    }

    private KafkaProducer<byte[], byte[]> transactional(String topic) {
        return kafka.transactionalProducer(topic + "-tx");
    }

    private static void sendVersioned(KafkaProducer<byte[], byte[]> producer, String topic, long key, float[] weights, long version) {
        // one partition: the test's order is the topic's
        producer.send(new ProducerRecord<>(topic, 0, RowCodec.key(key), RowCodec.value(weights),
                java.util.List.of(RowVersion.header(version))));
        producer.flush();
    }

    private static void send(KafkaProducer<byte[], byte[]> tx, String topic, long key, float[] weights) {
        tx.send(new ProducerRecord<>(topic, RowCodec.key(key), RowCodec.value(weights)));
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not " + what + " within 60 s");
            }
            Thread.sleep(50);
        }
    }
}
