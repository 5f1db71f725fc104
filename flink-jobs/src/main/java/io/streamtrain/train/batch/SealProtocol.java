package io.streamtrain.train.batch;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;

/**
 * Closes an idle partition's open batch without breaking replay. Closing after max-wait of
 * wall-clock time is not a function of the records, so the batch is <em>sealed</em> and released
 * (emitted) only once the cut is durable: the cut log ({@link CutLog}) has acknowledged the cut
 * record sent with the seal, or a checkpoint containing the seal has completed, whichever comes
 * first; records arriving meanwhile are held and join the batches after it. A restore therefore
 * sees either the durable seal, or the cut in the cut log (and cuts there again), or neither (and
 * re-cuts by {@link BatchCutter}'s rules), decisions/0018. Without a cut log, or while its
 * writes fail, only the checkpoint releases the seal; then a record that arrives before any
 * snapshot has started since the seal {@linkplain #withdraw withdraws} it: no checkpoint can hold
 * that seal, so the batch goes on as if never sealed (decisions/0017). A seal whose cut was sent
 * is never withdrawn. A partition is sealed only when Kafka holds no record after the open batch
 * ({@link PartitionTail}): a replay, which looks idle for a moment while its restarted source
 * catches up, must not cut where the failed run cut later and already pushed beyond.
 */
final class SealProtocol implements Serializable {
    private static final long serialVersionUID = 1L;
    /** How often a sealed batch asks whether its cut has become durable. */
    static final long POLL_MS = 50;
    /**
     * How often a sealed batch whose cut went to the cut log asks whether the broker has it: the
     * acknowledgement takes milliseconds, and the wait is part of every quiet partition's freshness.
     */
    static final long ACK_POLL_MS = 10;

    private final String topic;
    private final PartitionTail tail;
    private final long maxWaitMs;
    /**
     * With a cut log a seal costs one acknowledged write, so a batch is sealed once it is max-wait
     * old and its partition is drained: its first record waits at most max-wait. Without one a
     * seal may hold the partition for a checkpoint, so only a batch that has had no record for
     * max-wait is sealed; then a burst that ends just before its batch's record-time cut holds
     * that batch's first record for up to twice max-wait.
     */
    private final boolean sealByAge;

    private transient ListState<BatchRecord> held;
    private transient long lastStartedSnapshot;
    private transient long lastCompletedCheckpoint;

    SealProtocol(String topic, PartitionTail tail, long maxWaitMs, boolean sealByAge) {
        this.topic = topic;
        this.tail = tail;
        this.maxWaitMs = maxWaitMs;
        this.sealByAge = sealByAge;
    }

    /** The job restarted from {@code checkpointId} (0: a fresh start): seals before it are durable. */
    void restored(long checkpointId) {
        lastStartedSnapshot = checkpointId;
        lastCompletedCheckpoint = checkpointId;
    }

    void open(RuntimeContext context) {
        // The state name is part of the checkpoint layout.
        held = context.getListState(new ListStateDescriptor<>("held-records", BatchRecord.class));
    }

    void snapshotStarted(long checkpointId) {
        lastStartedSnapshot = Math.max(lastStartedSnapshot, checkpointId);
    }

    void checkpointCompleted(long checkpointId) {
        lastCompletedCheckpoint = Math.max(lastCompletedCheckpoint, checkpointId);
    }

    /**
     * Seals the current key's batch if it has been idle for max-wait and its partition is drained;
     * returns whether it did.
     */
    boolean sealIfIdle(OpenBatch batch, long now) {
        if (waited(batch, now) && tail.drainedFrom(topic, batch.partition(), batch.meta.nextOffset)) {
            batch.seal(lastStartedSnapshot);
            return true;
        }
        return false;
    }

    /** When an unsealed open batch is next checked ({@link #sealIfIdle}). */
    long nextIdleCheck(OpenBatch batch, long now) {
        if (!sealByAge) {
            return Math.max(batch.lastArrival(), now) + maxWaitMs;
        }
        // Old enough but not drained: the source is a little behind, and the batch closes as soon as it catches up.
        return waited(batch, now) ? now + POLL_MS : batch.firstArrival() + maxWaitMs;
    }

    private boolean waited(OpenBatch batch, long now) {
        return now - (sealByAge ? batch.firstArrival() : batch.lastArrival()) >= maxWaitMs;
    }

    /**
     * The cut survives any restore: the cut log holds it, or a checkpoint started after the seal
     * has completed.
     */
    boolean isDurable(OpenBatch batch) {
        return batch.isCutLogged() || lastCompletedCheckpoint > batch.meta.sealedAfterSnapshot;
    }

    /** When a sealed batch next asks whether its cut is durable. */
    long nextPoll(OpenBatch batch, long now) {
        return now + (batch.meta.cutSent ? ACK_POLL_MS : POLL_MS);
    }

    /**
     * Withdraws the seal of the current key's batch if no snapshot has started since it was sealed
     * (so none holds it) and returns true; the arriving record then joins the batch, or closes it by
     * record time, as if it had never been sealed. False once a checkpoint may hold the seal, and
     * once its cut was sent to the cut log (the cut log may hold it, and a replay would cut there).
     */
    boolean withdraw(OpenBatch batch) {
        if (batch.meta.cutSent || lastStartedSnapshot > batch.meta.sealedAfterSnapshot) {
            return false;
        }
        batch.unseal();
        return true;
    }

    /** Keeps a record of the current key until its sealed batch is released. */
    void hold(BatchRecord r) throws Exception {
        held.add(r);
    }

    /** The current key's held records, which then are no longer held. */
    List<BatchRecord> takeHeld() throws Exception {
        List<BatchRecord> waiting = new ArrayList<>();
        for (BatchRecord r : held.get()) {
            waiting.add(r);
        }
        held.clear();
        return waiting;
    }

    /** How many records the current key holds. */
    long heldCount() throws Exception {
        long n = 0;
        Iterable<BatchRecord> records = held.get();
        if (records != null) {
            for (BatchRecord ignored : records) {
                n++;
            }
        }
        return n;
    }

    void close() {
        tail.close();
    }
}
