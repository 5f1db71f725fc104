package io.streamtrain.train.batch;

/** The batcher's durable per-partition bookkeeping (the open batch itself is in list state). */
public class BatcherMeta {
    /** The source partition this key batches. */
    public int partition;
    /** Sequence number the next batch of this partition gets. */
    public long nextSeq;
    /** The open batch was closed by the idle timer and waits for the cut log or a checkpoint to make that cut durable. */
    public boolean sealed;
    /** Id of the last snapshot started before the seal; the cut is durable once a later checkpoint completes. */
    public long sealedAfterSnapshot;
    /** The source offset after the last record taken; a record below it is a duplicate delivery. */
    public long nextOffset;
    /** The sealed batch's cut was sent to the cut log: the seal can no longer be withdrawn. */
    public boolean cutSent;
    /**
     * Where a restore reads this partition's cuts from: the cuts-topic offset after its last
     * acknowledged cut, or before any, where the job that created this state started reading the
     * cuts topic; -1 until then.
     */
    public long cutsFrom = -1;

    public BatcherMeta() {}
}
