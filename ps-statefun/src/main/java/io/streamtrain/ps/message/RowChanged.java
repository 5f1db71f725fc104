package io.streamtrain.ps.message;

/**
 * PS → model-updates topic: a row's weights after a push changed them (no optimizer slots: serving
 * needs only the weights). The latest one per key is the row, so the topic can be compacted.
 */
public class RowChanged {
    public long key;
    public float[] weights;
    /** The row's pushes applied so far, this one included: the update's version (see {@link io.streamtrain.contract.RowVersion}). */
    public long version;
    /** When the PS applied the push (ms since the epoch): the record's timestamp, for freshness. */
    public long appliedAt;

    public RowChanged() {}

    public RowChanged(long key, float[] weights, long version, long appliedAt) {
        this.key = key;
        this.weights = weights;
        this.version = version;
        this.appliedAt = appliedAt;
    }
}
