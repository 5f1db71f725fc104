package io.streamtrain.train.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.message.PushApplied;
import io.streamtrain.testing.KafkaFixture;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Flow control against a real broker: how a wait for a credit ends. */
class BatchCreditsIT {
    private final KafkaFixture kafka = KafkaFixture.shared();
    private final Map<String, Counter> counters = new HashMap<>();

    @Test
    void aWaitGoesOnWhileThePsAnnouncesOtherBatchesAndEndsWhenOursIsApplied() throws Exception {
        String topic = topic();
        try (BatchCredits credits = new BatchCredits(kafka.bootstrapServers(), topic, 1, 500);
                KafkaProducer<byte[], byte[]> ps = kafka.producer()) {
            credits.open(metrics());
            credits.sent(0, 0, 2);
            // The PS is busy with another batcher's batches for 1.5 s (three times the wait), then applies ours.
            CompletableFuture<Void> announcing = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 15; i++) {
                    announce(ps, topic, new PushApplied(7, i, 1));
                    sleep(100);
                }
                announce(ps, topic, new PushApplied(0, 0, 2));
            });
            credits.awaitCredit();
            announcing.get(30, TimeUnit.SECONDS);
            assertEquals(0, counters.get("creditWaitsRunOut").getCount(), "the wait did not run out while notices arrived");
            assertEquals(0, credits.inFlight(), "it ended because our batch was announced");
            assertTrue(counters.get("creditWaitMs").getCount() >= 1200, "it waited for the notice: " + counters.get("creditWaitMs").getCount() + " ms");
        }
    }

    @Test
    void aWaitWithoutAnyNoticeRunsOutAndLiftsTheBoundUntilTheNextSnapshot() throws Exception {
        String topic = topic();
        try (BatchCredits credits = new BatchCredits(kafka.bootstrapServers(), topic, 1, 200)) {
            credits.open(metrics());
            credits.sent(0, 0, 1);
            credits.awaitCredit();
            assertEquals(1, counters.get("creditWaitsRunOut").getCount(), "no notice came: the wait ran out");

            assertBoundLiftedUntilTheSnapshot(credits, topic, 1, 1);
        }
    }

    @Test
    void eachWaitThatRunsOutLetsOneBatchPastTheBoundUntilTheBoundIsDoubled() throws Exception {
        String topic = topic();
        try (BatchCredits credits = new BatchCredits(kafka.bootstrapServers(), topic, 2, 100)) {
            credits.open(metrics());
            credits.sent(0, 0, 1);
            credits.sent(0, 1, 1);
            credits.awaitCredit();
            assertEquals(1, counters.get("creditWaitsRunOut").getCount(), "two in flight, no notice: the wait ran out");
            credits.awaitCredit();
            assertEquals(1, counters.get("creditWaitsRunOut").getCount(), "one batch may go past the bound: no wait for it");

            credits.sent(0, 2, 1);
            credits.awaitCredit();
            assertEquals(2, counters.get("creditWaitsRunOut").getCount(), "the next batch past the bound waits again");

            assertBoundLiftedUntilTheSnapshot(credits, topic, 3, 2); // twice the bound in flight
        }
    }

    @Test
    void aNoticeAfterTheBoundWasLiftedRestoresIt() throws Exception {
        String topic = topic();
        try (BatchCredits credits = new BatchCredits(kafka.bootstrapServers(), topic, 1, 100);
                KafkaProducer<byte[], byte[]> ps = kafka.producer()) {
            credits.open(metrics());
            credits.sent(0, 0, 1);
            credits.awaitCredit();
            assertEquals(1, counters.get("creditWaitsRunOut").getCount(), "no notice came: the wait ran out");
            credits.sent(0, 1, 1);
            credits.awaitCredit();
            assertEquals(1, counters.get("creditWaitsRunOut").getCount(), "the bound is lifted: no further wait");

            // The PS applies pushes again (another batcher's), while ours are still in flight: its
            // pause is over, so the batches let past count against the bound once more.
            announce(ps, topic, new PushApplied(7, 0, 1));
            long seq = 2;
            long deadline = System.currentTimeMillis() + 10_000;
            while (counters.get("creditWaitsRunOut").getCount() == 1 && System.currentTimeMillis() < deadline) {
                credits.sent(0, seq++, 1);
                credits.awaitCredit(); // goes at once while the notice is not yet read
            }
            assertEquals(2, counters.get("creditWaitsRunOut").getCount(), "once the notice was read, the next batch waited again");
        }
    }

    @Test
    void rightAfterTheSnapshotAWaitLastsUntilThePsAnnouncesAgain() throws Exception {
        String topic = topic();
        try (BatchCredits credits = new BatchCredits(kafka.bootstrapServers(), topic, 1, 100);
                KafkaProducer<byte[], byte[]> ps = kafka.producer()) {
            credits.open(metrics());
            credits.sent(0, 0, 1);
            credits.resume(); // the batcher's snapshot: the PS is snapshotting now
            // The PS is back after 800 ms (eight times the wait) and applies another batcher's push first.
            CompletableFuture<Void> back = CompletableFuture.runAsync(() -> {
                sleep(800);
                announce(ps, topic, new PushApplied(7, 0, 1));
            });
            credits.awaitCredit();
            back.get(30, TimeUnit.SECONDS);
            long waited = counters.get("creditWaitMs").getCount();
            assertTrue(waited >= 800, "no run-out during the PS's snapshot: waited " + waited + " ms");
            assertEquals(1, counters.get("creditWaitsRunOut").getCount(),
                    "after the notice our batch was still in flight, and the wait ran out as usual");
            assertTrue(waited < 1900, "it did not wait for the hard cap: " + waited + " ms");
        }
    }

    /**
     * Sends batch {@code seq} and checks that it goes without a wait (the bound is lifted, the
     * run-outs stay at {@code runOuts}), and that after the batcher's snapshot, once the PS
     * announces again, the next wait runs out again.
     */
    private void assertBoundLiftedUntilTheSnapshot(BatchCredits credits, String topic, long seq, long runOuts) {
        credits.sent(0, seq, 1);
        long before = counters.get("creditWaitMs").getCount();
        credits.awaitCredit();
        assertEquals(runOuts, counters.get("creditWaitsRunOut").getCount(), "the bound is lifted: no further wait");
        assertEquals(before, counters.get("creditWaitMs").getCount());

        credits.resume(); // the batcher's snapshot
        try (KafkaProducer<byte[], byte[]> ps = kafka.producer()) {
            announce(ps, topic, new PushApplied(7, 0, 1)); // the PS's snapshot is over: another batcher's push applied
        }
        credits.awaitCredit();
        assertEquals(runOuts + 1, counters.get("creditWaitsRunOut").getCount(), "after the snapshot the bound holds again");
    }

    private String topic() {
        String topic = "applied-" + System.nanoTime();
        kafka.createTopic(topic, 1);
        return topic;
    }

    private UnregisteredMetricsGroup metrics() {
        return new UnregisteredMetricsGroup() {
            @Override
            public Counter counter(String name) {
                return counter(name, new SimpleCounter());
            }

            @Override
            public <C extends Counter> C counter(String name, C counter) {
                counters.put(name, counter);
                return counter;
            }
        };
    }

    private static void announce(KafkaProducer<byte[], byte[]> producer, String topic, PushApplied notice) {
        try {
            producer.send(new ProducerRecord<>(topic, notice.toBytes())).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
