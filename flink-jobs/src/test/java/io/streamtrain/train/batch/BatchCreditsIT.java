package io.streamtrain.train.batch;

import io.streamtrain.kafka.KafkaConnection;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.message.PushApplied;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TrainingOptions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.function.ThrowingRunnable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Flow control through the batcher in Flink's operator test harness, with notices on a real broker:
 * a batch waits for a credit, notices release it, and how a wait that gets none runs out. Every
 * batch holds one record (batch size 1), so record {@code n} of partition 0 is batch {@code n}.
 * A wait yields the test thread to the operator's mailbox; another thread acts meanwhile, and
 * processing time moves only when it sets it.
 */
class BatchCreditsIT {
    private static final long CREDIT_WAIT_MS = 100;
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void aWaitGoesOnWhileThePsAnnouncesOtherBatchesAndEndsWhenOursIsApplied() throws Exception {
        try (Loop loop = new Loop(1)) {
            loop.send(0);
            loop.send(1, () -> {
                // The PS is busy with another batcher's batches for more than a wait, then applies ours.
                for (int i = 1; i <= 3; i++) {
                    loop.advanceTo(i * 90);
                    loop.announce(new PushApplied(7, i, 1));
                    loop.awaitNoticesTaken(i);
                }
                loop.announce(new PushApplied(0, 0, loop.pushesOf(0)));
            });
            assertEquals(0, loop.credits.waitsRunOut(), "the wait did not run out while notices arrived");
            assertEquals(2, loop.batchesOut());
            assertEquals(1, loop.credits.inFlight(), "batch 0 returned its credit; batch 1 holds it");
        }
    }

    @Test
    void aWaitWithoutAnyNoticeRunsOutAndLiftsTheBoundUntilTheNextSnapshot() throws Exception {
        try (Loop loop = new Loop(1)) {
            loop.send(0);
            loop.send(1, () -> loop.advanceTo(CREDIT_WAIT_MS));
            assertEquals(1, loop.credits.waitsRunOut(), "no notice came: the wait ran out");

            loop.assertBoundLiftedUntilTheSnapshot(2, 1);
        }
    }

    @Test
    void aWaitAllowsTwiceOurLatestRoundTripWithoutANoticeWhenThatIsLongerThanTheCreditWait() throws Exception {
        try (Loop loop = new Loop(1)) {
            loop.send(0);
            loop.send(1, () -> {
                loop.advanceTo(90); // batch 0 comes back 90 ms after it left: the loop's pace
                loop.announce(new PushApplied(0, 0, loop.pushesOf(0)));
            });
            loop.send(2, () -> {
                // A worker slower than the credit wait (a deep model's tower): no notice for 150 ms is
                // still its pace, not a pause; 2 x 90 ms is.
                loop.advanceTo(90 + 150);
                Thread.sleep(300); // time for the task thread to end the wait, were its deadline passed
                assertTrue(loop.awaitParked(), "still waiting within twice the round trip");
                assertEquals(0, loop.credits.waitsRunOut(), "no run-out within twice the round trip");
                loop.advanceTo(90 + 2 * 90);
            });
            assertEquals(1, loop.credits.waitsRunOut(), "after twice the round trip without a notice the wait ran out");
        }
    }

    @Test
    void eachWaitThatRunsOutLetsOneBatchPastTheBoundUntilTheBoundIsDoubled() throws Exception {
        try (Loop loop = new Loop(2)) {
            loop.send(0);
            loop.send(1);
            loop.send(2, () -> loop.advanceTo(CREDIT_WAIT_MS));
            assertEquals(1, loop.credits.waitsRunOut(), "two in flight, no notice: the wait ran out");
            loop.send(3, () -> loop.advanceTo(2 * CREDIT_WAIT_MS));
            assertEquals(2, loop.credits.waitsRunOut(), "the next batch past the bound waits again");

            loop.assertBoundLiftedUntilTheSnapshot(4, 2); // twice the bound in flight
        }
    }

    @Test
    void aNoticeAfterTheBoundWasLiftedRestoresIt() throws Exception {
        try (Loop loop = new Loop(1)) {
            loop.send(0);
            loop.send(1, () -> loop.advanceTo(CREDIT_WAIT_MS));
            loop.send(2);
            assertEquals(1, loop.credits.waitsRunOut(), "the bound is lifted: no further wait");

            // The PS applies pushes again (another batcher's), while ours are still in flight: its
            // pause is over, so the batches let past count against the bound once more.
            loop.announce(new PushApplied(7, 0, 1));
            loop.awaitHandOver(); // read when batch 3 finds no credit
            loop.send(3, () -> {
                loop.awaitNoticesTaken(1);
                loop.advanceTo(3 * CREDIT_WAIT_MS);
            });
            assertEquals(2, loop.credits.waitsRunOut(), "once the notice was read, the next batch waited again");
        }
    }

    @Test
    void rightAfterTheSnapshotAWaitLastsUntilThePsAnnouncesAgain() throws Exception {
        try (Loop loop = new Loop(1)) {
            loop.send(0);
            BatcherHarness.snapshot(loop.harness, 1); // the batcher's snapshot: the PS is snapshotting now
            loop.send(1, () -> {
                loop.advanceTo(8 * CREDIT_WAIT_MS);
                loop.awaitParked();
                assertEquals(0, loop.credits.waitsRunOut(), "no run-out during the PS's snapshot");
                assertEquals(1, loop.batchesOut());
                // The PS is back and applies another batcher's push first: our batch is still in flight.
                loop.announce(new PushApplied(7, 0, 1));
                loop.awaitNoticesTaken(1);
                loop.advanceTo(9 * CREDIT_WAIT_MS);
            });
            assertEquals(1, loop.credits.waitsRunOut(), "after the notice the wait ran out as usual");
        }
    }

    /** Flow control that cannot follow its applied topic fails the batcher's start, naming the topic, instead of turning itself off. */
    @Test
    void aBatcherWhoseAppliedTopicCannotBeFollowedFailsToOpen() {
        String missing = "applied-missing-" + System.nanoTime();
        String examples = "examples-" + System.nanoTime();
        KafkaConnection connection = kafka.connection();
        BatchCredits credits = new BatchCredits(connection, missing, 1, CREDIT_WAIT_MS, TrainingOptions.CREDIT_HARD_CAP.defaultValue().toMillis());
        Exception e = assertThrows(Exception.class, () -> BatcherHarness.open(new MiniBatcher(BatcherHarness.KEY_GROUPS, new long[0],
                BatchSizeRamp.constant(1), 1_000_000, new ExampleValidator(100), 0, examples, new PartitionTail(connection),
                new PartitionLag(connection, examples, TrainingOptions.LAG_REFRESH_INTERVAL.defaultValue().toMillis()), credits, CutLog.off(),
                TrainingOptions.METRICS_REPORT_INTERVAL.defaultValue().toMillis()), 1, 0, null, 0).close());
        String messages = "";
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages += t.getMessage() + "\n";
        }
        assertTrue(messages.contains("batch flow control cannot follow the applied topic " + missing), messages);
    }

    /** The batcher with flow control at {@code maxInFlight}, its applied topic, and a PS stand-in that announces. */
    private final class Loop implements AutoCloseable {
        final String examples = "examples-" + System.nanoTime();
        final String applied = "applied-" + System.nanoTime();
        final BatchCredits credits;
        final KeyedOneInputStreamOperatorTestHarness<Integer, SourceRecord, MiniBatch> harness;
        final KafkaProducer<byte[], byte[]> ps = kafka.producer();
        final Thread testThread = Thread.currentThread();
        /** The send on the test thread is over. */
        final AtomicBoolean done = new AtomicBoolean();

        Loop(int maxInFlight) throws Exception {
            kafka.createTopic(applied, 1);
            KafkaConnection connection = kafka.connection();
            credits = new BatchCredits(connection, applied, maxInFlight, CREDIT_WAIT_MS,
                    TrainingOptions.CREDIT_HARD_CAP.defaultValue().toMillis());
            // A max-wait far beyond the test's processing time: no idle check interferes.
            harness = BatcherHarness.open(new MiniBatcher(BatcherHarness.KEY_GROUPS, new long[0], BatchSizeRamp.constant(1), 1_000_000, new ExampleValidator(100), 0,
                    examples, new PartitionTail(connection), new PartitionLag(connection, examples, TrainingOptions.LAG_REFRESH_INTERVAL.defaultValue().toMillis()), credits, CutLog.off(),
                    TrainingOptions.METRICS_REPORT_INTERVAL.defaultValue().toMillis()), 1, 0, null, 0);
        }

        /** Sends batch {@code seq}, which must not wait for a credit. */
        void send(long seq) throws Exception {
            send(seq, () -> {
                throw new AssertionError("batch " + seq + " waited for a credit");
            });
        }

        /** Sends batch {@code seq}; if it waits for a credit, {@code whileWaiting} runs on another thread. */
        void send(long seq, ThrowingRunnable<Exception> whileWaiting) throws Exception {
            CompletableFuture<Void> helper = CompletableFuture.runAsync(() -> {
                try {
                    if (awaitParked()) {
                        whileWaiting.run();
                    }
                } catch (Throwable t) {
                    advanceTo(Long.MAX_VALUE / 2); // let the wait run out, so the test thread sees the failure
                    throw t instanceof AssertionError a ? a : new AssertionError(t);
                }
            });
            int before = batchesOut();
            harness.processElement(BatcherHarness.record(examples, 0, seq, 0), 0);
            done.set(true);
            helper.get(30, TimeUnit.SECONDS);
            done.set(false);
            assertEquals(before + 1, batchesOut(), "batch " + seq + " went out");
        }

        /**
         * Until the test thread waits for a credit, parked in the mailbox: true, or false once the
         * send is over without a wait.
         */
        boolean awaitParked() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!done.get()) {
                Thread.State state = testThread.getState();
                if (credits.waiting() && (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)) {
                    return true;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the batcher neither waited nor finished");
                }
                Thread.onSpinWait();
            }
            return false;
        }

        void awaitNoticesTaken(long n) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (credits.noticesTaken() < n) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + credits.noticesTaken() + " notices taken, expected " + n);
                }
                Thread.onSpinWait();
            }
            awaitParked();
        }

        /** Until the notices that arrived are handed to the task thread's mailbox. */
        void awaitHandOver() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!harness.getTaskMailbox().hasMail()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no notice arrived");
                }
                Thread.onSpinWait();
            }
        }

        void advanceTo(long ms) {
            try {
                harness.setProcessingTime(ms);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        void announce(PushApplied notice) {
            try {
                ps.send(new ProducerRecord<>(applied, notice.toBytes())).get();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        int pushesOf(long seq) {
            return harness.extractOutputValues().stream().filter(b -> b.batchSeq == seq).findFirst().orElseThrow().pulls;
        }

        int batchesOut() {
            return harness.extractOutputValues().size();
        }

        /**
         * Sends batch {@code seq} and checks that it goes without a wait (the bound is lifted, the
         * run-outs stay at {@code runOuts}), and that after the batcher's snapshot, once the PS
         * announces again, the next wait runs out again.
         */
        void assertBoundLiftedUntilTheSnapshot(long seq, long runOuts) throws Exception {
            send(seq);
            assertEquals(runOuts, credits.waitsRunOut(), "the bound is lifted: no further wait");

            BatcherHarness.snapshot(harness, 1); // the batcher's snapshot
            announce(new PushApplied(7, 0, 1)); // the PS's snapshot is over: another batcher's push applied
            long now = harness.getProcessingTime();
            send(seq + 1, () -> {
                awaitNoticesTaken(1);
                advanceTo(now + 10 * CREDIT_WAIT_MS);
            });
            assertEquals(runOuts + 1, credits.waitsRunOut(), "after the snapshot the bound holds again");
        }

        @Override
        public void close() throws Exception {
            ps.close();
            harness.close();
        }
    }
}
