package io.streamtrain.train.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One source partition's batch being filled, on the heap: its durable bookkeeping ({@link
 * BatcherMeta}) and records, which {@link OpenBatches} writes to keyed state before each barrier.
 */
final class OpenBatch {
    final BatcherMeta meta;
    /** The partition's next expected offset, which its lag gauge reads from the metrics thread. */
    private final AtomicLong nextOffset;
    private final int capacity;
    private List<BatchRecord> records;
    private long firstTimestamp;
    /** Processing time of the first record added: with a cut log, the idle timer seals a batch this old. */
    private long firstArrival;
    /** Processing time of the last record added: without a cut log, the idle timer seals only after max-wait without one. */
    private long lastArrival;
    /** Changed since its last write to state. */
    private boolean dirty;
    /** The seal's cut is in the cut log. */
    private boolean cutLogged;
    /** Per sequence number, where a failed attempt cut this partition's idle batches: a replay cuts there too. */
    private NavigableMap<Long, Cut> recordedCuts = new TreeMap<>();

    OpenBatch(BatcherMeta meta, AtomicLong nextOffset, int batchSize, Iterable<BatchRecord> restored, long now) {
        this.meta = meta;
        this.nextOffset = nextOffset;
        this.capacity = Math.min(batchSize, 4096); // room for a whole batch, unless the batch size is set very large
        this.records = new ArrayList<>(capacity);
        nextOffset.set(meta.nextOffset);
        if (restored != null) {
            for (BatchRecord r : restored) {
                add(r, now);
            }
        }
        this.lastArrival = now;
        this.dirty = false; // restored as it is in state
    }

    int partition() {
        return meta.partition;
    }

    /**
     * Takes the source offset of the next record; false if this run has already taken it (the
     * source delivered it again): cut again it would be in two batches under two sequence
     * numbers, and the PS would apply both.
     */
    boolean take(long offset) {
        if (offset < meta.nextOffset) {
            return false;
        }
        meta.nextOffset = offset + 1;
        nextOffset.set(meta.nextOffset);
        dirty = true;
        return true;
    }

    void add(BatchRecord r, long now) {
        if (records.isEmpty()) {
            firstTimestamp = r.timestamp;
            firstArrival = now;
        }
        records.add(r);
        lastArrival = now;
        dirty = true;
    }

    /** The records so far, leaving the batch empty. */
    List<BatchRecord> cut() {
        List<BatchRecord> cut = records;
        records = new ArrayList<>(capacity);
        dirty = true;
        return cut;
    }

    boolean isEmpty() {
        return records.isEmpty();
    }

    int size() {
        return records.size();
    }

    long firstTimestamp() {
        return firstTimestamp;
    }

    long firstArrival() {
        return firstArrival;
    }

    long lastArrival() {
        return lastArrival;
    }

    boolean sealed() {
        return meta.sealed;
    }

    void seal(long afterSnapshot) {
        meta.sealed = true;
        meta.sealedAfterSnapshot = afterSnapshot;
        dirty = true;
    }

    void unseal() {
        meta.sealed = false;
        meta.cutSent = false;
        cutLogged = false;
        dirty = true;
    }

    /** The seal's cut went to the cut log. */
    void cutSent() {
        meta.cutSent = true;
        dirty = true;
    }

    /** The cut log holds batch {@code seq}'s cut at {@code logOffset}. */
    void cutLogged(long seq, long logOffset) {
        meta.cutsFrom = Math.max(meta.cutsFrom, logOffset + 1);
        dirty = true;
        if (meta.sealed && meta.cutSent && meta.nextSeq == seq) {
            cutLogged = true;
        }
    }

    /** Where a restore reads this partition's cuts from, until a cut is acknowledged. */
    void readCutsFrom(long logOffset) {
        meta.cutsFrom = logOffset;
        dirty = true;
    }

    /** The sealed batch's cut is in the cut log. */
    boolean isCutLogged() {
        return cutLogged;
    }

    /** The cuts a failed attempt recorded for this partition, which this run follows. */
    void follow(NavigableMap<Long, Cut> recorded) {
        this.recordedCuts = recorded;
    }

    /** The batch holds the record a recorded cut of its sequence number ends with: it closes there. */
    boolean reachedRecordedCut() {
        if (records.isEmpty() || recordedCuts.isEmpty()) {
            return false;
        }
        Cut cut = recordedCuts.get(meta.nextSeq);
        return cut != null && records.get(records.size() - 1).offset >= cut.lastOffset();
    }

    /** The sequence number this batch will take when it closes. */
    long nextSeq() {
        return meta.nextSeq;
    }

    /** The batch's sequence number, which the next one gets one higher. */
    long takeSeq() {
        dirty = true;
        return meta.nextSeq++;
    }

    void markDirty() {
        dirty = true;
    }

    /** True once, after a change: the write-back then writes it. */
    boolean takeDirty() {
        boolean was = dirty;
        dirty = false;
        return was;
    }

    List<BatchRecord> records() {
        return records;
    }
}
