package io.streamtrain.train.batch;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.ps.message.PushApplied;
import java.io.Serializable;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.ScheduledFuture;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.function.ThrowingRunnable;
import org.apache.kafka.common.KafkaException;

/**
 * Credit-based flow control for one batcher subtask: before it sends another batch, at most
 * {@code maxInFlight} of its batches may be pulled but not yet applied by the PS. The PS announces
 * the pushes it handles on the applied topic ({@link PushApplied}, counted per batch, followed by
 * {@link AppliedNoticeFeed}); a batch is done when all its pushes (one per pull) are announced.
 * Without this bound the PS answers pulls faster than it applies pushes during a backlog, and
 * gradients get seconds stale (docs/ARCHITECTURE.md, "Staleness").
 *
 * <p>A wait does not block the task thread: it yields to the task's mailbox, which runs the notice
 * hand-overs, the wait's own deadline timer, and this operator's other mails, until a credit is
 * free or the wait runs out. Input records and checkpoint barriers stay queued meanwhile, as behind
 * a blocking wait, so the bound still throttles the source.
 *
 * <p>Only pacing depends on it, never the model. A wait goes on while notices keep arriving (the
 * PS is working, if slowly), and runs out after a silence longer than the loop's own pace: no notice
 * for {@code maxWaitMs}, or for twice the latest round trip of one of ours (sent to applied) when
 * that is longer. A deep model's worker takes 100-300 ms per batch of 1024, so the notices of a
 * healthy loop come that far apart; a fixed 20 ms ran out before nearly every batch there, the
 * bound never held, and pulled batches queued in front of the worker (staleness p99 ~1 s,
 * docs/benchmarks.md, "Staleness of the deepfm loop"). Then one batch goes
 * past the bound, and after {@code maxInFlight} of them the bound is suspended, because under
 * aligned checkpoints the likely cause is a checkpoint: the PS, aligning barriers, holds its push
 * input until the batcher forwards its barrier, which it cannot do while it waits. (Under unaligned
 * checkpoints, the job's default, nothing holds the PS back for the batcher, and a wait runs out
 * only in the PS's own pauses.) The bound holds again at the batcher's next snapshot or at the
 * next notice, whichever comes first: a notice means the PS applies pushes, so nothing holds it
 * up. From the batcher's snapshot to the next notice a wait does not run out at all: the PS is then
 * finishing its alignment and taking its own snapshot, which end by themselves, and batches sent
 * into that pause only queue behind it (docs/decisions/0004-credit-flow-control.md).
 */
public final class BatchCredits implements Serializable, AutoCloseable {
    private static final long serialVersionUID = 1L;
    /** Batches remembered at most, as a multiple of the bound: notices lost to a sink hiccup must not pin credits. */
    private static final int REMEMBERED_FACTOR = 16;
    /**
     * A wait runs out after this many of our latest round trips without a notice (if longer than
     * maxWaitMs): with one batch in flight, a wait that begins as it leaves sees a whole round trip
     * of silence before its notice, so one round trip is the loop's pace and two are a pause.
     */
    private static final int ROUND_TRIPS_OF_SILENCE = 2;

    private final KafkaConnection kafka;
    private final String topic;
    private final int maxInFlight;
    private final long maxWaitMs;
    /** A wait ends after this long even while notices of other batches arrive (ours were lost). */
    private final long hardCapMs;

    private transient AppliedNoticeFeed feed;
    private transient ProcessingTimeService time;
    private transient MailboxExecutor mailbox;
    private transient ThrowingRunnable<InterruptedException> yieldToMailbox;
    /** (source partition, batch sequence) → the batch in flight, oldest first. */
    private transient LinkedHashMap<BatchId, InFlight> inFlight;
    /** The latest round trip of one of our batches, sent to its last push announced, in ms; 0 before the first. */
    private transient long lastRoundTripMs;
    /**
     * Batches let past the bound since the last snapshot or notice, one per wait that ran out; at
     * maxInFlight the bound is lifted.
     */
    private transient int overdraft;
    /** The batcher's barrier has passed and no notice came since: the PS's snapshot, which ends by itself. */
    private transient boolean psSnapshotting;
    /** Notices taken since the start: a wait sees whether any came while it yielded. */
    private transient volatile long noticesTaken;
    private transient volatile boolean waiting;
    private transient Counter waitedMs;
    private transient Counter waitsRunOut;

    /**
     * @param maxInFlight batches per batcher subtask pulled but not yet applied; 0 turns flow control off
     * @param maxWaitMs how long a wait for a credit goes on without any notice, at least (twice our latest round trip if longer)
     * @param hardCapMs the longest one wait for a credit may take at all
     */
    public BatchCredits(KafkaConnection kafka, String topic, int maxInFlight, long maxWaitMs, long hardCapMs) {
        this.kafka = kafka;
        this.topic = topic;
        this.maxInFlight = maxInFlight;
        this.maxWaitMs = maxWaitMs;
        this.hardCapMs = hardCapMs;
    }

    /**
     * Starts following the applied topic from its end: only this run's batches count.
     *
     * @param mailbox the batcher operator's mailbox, which takes the notices' hand-overs
     * @param yieldToMailbox runs one mail of it (waiting for one), with the operator's key context kept
     */
    void open(MetricGroup batcherGroup, MailboxExecutor mailbox, ThrowingRunnable<InterruptedException> yieldToMailbox,
              ProcessingTimeService time, String threadName) {
        inFlight = new LinkedHashMap<>();
        this.time = time;
        this.mailbox = mailbox;
        this.yieldToMailbox = yieldToMailbox;
        waitedMs = batcherGroup.counter("creditWaitMs");
        waitsRunOut = batcherGroup.counter("creditWaitsRunOut");
        batcherGroup.gauge("batchesInFlight", () -> inFlight == null ? 0 : inFlight.size());
        if (maxInFlight <= 0) {
            return;
        }
        try {
            feed = AppliedNoticeFeed.start(kafka, topic, mailbox, this::takeNotices, threadName);
        } catch (KafkaException e) {
            // Fail the task rather than run without the bound: unbounded batches in flight make
            // gradients seconds stale, and the cause (credentials, ACLs, a missing topic) is the user's to fix.
            throw new KafkaException("batch flow control cannot follow the applied topic " + topic + " on " + kafka
                    + ": " + e.getMessage() + " (with -Dstreamtrain.train.max-batches-in-flight=0 the job runs without flow control)", e);
        }
    }

    /** A batch went out with {@code pushes} pulls; it holds a credit until all its pushes are announced. */
    void sent(int sourcePartition, long batchSeq, int pushes) {
        if (feed == null || pushes == 0) {
            return;
        }
        inFlight.put(new BatchId(sourcePartition, batchSeq), new InFlight(pushes, time.getCurrentProcessingTime()));
        Iterator<BatchId> oldest = inFlight.keySet().iterator();
        while (inFlight.size() > maxInFlight * REMEMBERED_FACTOR) {
            oldest.next();
            oldest.remove();
        }
    }

    /**
     * Returns once fewer than {@code maxInFlight} batches (plus the overdraft) are in flight, or the
     * wait ran out: no notice at all for {@link #silenceMs}, or none of ours for {@link #hardCapMs}.
     * A wait that runs out lets this one batch past the bound; after {@code maxInFlight} such batches
     * the bound is lifted. The likely cause is a checkpoint: the PS, aligning its barriers, holds up
     * every push, and so every notice, until this batcher forwards its barrier, which it reaches only
     * by handling the records before it. Batch by batch, a short wait gets it there. Any notice ends
     * the overdraft: the PS is applying pushes again (its own pause, a write-back or snapshot, is
     * over), and the batches let past must drain below the bound before the next one goes. Between
     * the batcher's snapshot and the next notice a wait ends only with a notice (or after
     * {@link #hardCapMs}): that pause is the PS's snapshot, not something the batcher must get past.
     */
    void awaitCredit() throws InterruptedException {
        if (feed == null || inFlight.size() < bound()) {
            return;
        }
        takeNotices();
        if (feed == null || inFlight.size() < bound() || overdraft >= maxInFlight) {
            return;
        }
        long start = time.getCurrentProcessingTime();
        long lastNotice = start;
        long wakeAt = -1;
        ScheduledFuture<?> wakeUp = null;
        waiting = true;
        try {
            while (feed != null && inFlight.size() >= bound()) {
                long now = time.getCurrentProcessingTime();
                long deadline = psSnapshotting ? start + hardCapMs : Math.min(lastNotice + silenceMs(), start + hardCapMs);
                if (now >= deadline) {
                    waitsRunOut.inc();
                    overdraft++;
                    break;
                }
                if (deadline != wakeAt) {
                    if (wakeUp != null) {
                        wakeUp.cancel(false);
                    }
                    // A mail at the deadline ends the yield below. (The task's timer callbacks run
                    // as mails already; a test harness runs them on the thread that sets the time.)
                    wakeUp = time.registerTimer(deadline, t -> mailbox.execute(() -> {}, "credit wait deadline"));
                    wakeAt = deadline;
                }
                long before = noticesTaken;
                yieldToMailbox.run();
                if (noticesTaken > before) {
                    lastNotice = time.getCurrentProcessingTime();
                }
            }
        } finally {
            waiting = false;
            if (wakeUp != null) {
                wakeUp.cancel(false);
            }
        }
        waitedMs.inc(time.getCurrentProcessingTime() - start);
    }

    /** True while {@link #awaitCredit} yields to the mailbox (for whatever else runs meanwhile). */
    boolean waiting() {
        return waiting;
    }

    /**
     * The batcher's barrier has passed: a wait can no longer hold up this checkpoint's alignment, and
     * until the next notice the PS is snapshotting.
     */
    void resume() {
        overdraft = 0;
        psSnapshotting = true;
    }

    /** How long a wait goes on without any notice: {@code maxWaitMs}, or twice our latest round trip if longer. */
    private long silenceMs() {
        return Math.max(maxWaitMs, ROUND_TRIPS_OF_SILENCE * lastRoundTripMs);
    }

    private int bound() {
        return maxInFlight + overdraft;
    }

    /** On the task thread: counts the notices received off the batches in flight. Any notice ends the overdraft. */
    private void takeNotices() {
        if (feed == null) {
            return;
        }
        long now = time.getCurrentProcessingTime();
        int notices = feed.drainTo(applied -> {
            BatchId id = new BatchId(applied.sourcePartition, applied.batchSeq);
            InFlight batch = inFlight.get(id);
            if (batch != null && (batch.pushesLeft -= applied.pushes) <= 0) {
                inFlight.remove(id);
                lastRoundTripMs = Math.max(0, now - batch.sentAt);
            }
        });
        if (notices > 0) {
            noticesTaken += notices;
            overdraft = 0;
            psSnapshotting = false;
        }
        if (feed.failure() != null) {
            String why = feed.failure();
            close();
            throw new KafkaException("batch flow control stopped following the applied topic " + topic + ": " + why);
        }
    }

    @Override
    public void close() {
        if (feed != null) {
            feed.close();
            feed = null;
        }
    }

    private record BatchId(int sourcePartition, long batchSeq) {}

    /** A batch in flight: its pushes not yet announced, and when it went out. */
    private static final class InFlight {
        int pushesLeft;
        final long sentAt;

        InFlight(int pushes, long sentAt) {
            this.pushesLeft = pushes;
            this.sentAt = sentAt;
        }
    }

    /** For tests: batches currently holding a credit. */
    int inFlight() {
        return inFlight.size();
    }

    /** For tests: notices taken so far. */
    long noticesTaken() {
        return noticesTaken;
    }

    /** For tests: waits that ran out so far. */
    long waitsRunOut() {
        return waitsRunOut.getCount();
    }
}
