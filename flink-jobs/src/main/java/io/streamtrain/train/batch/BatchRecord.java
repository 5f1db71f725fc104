package io.streamtrain.train.batch;

/** A decoded, validated example waiting in the batcher's state for its mini-batch to close. */
public class BatchRecord {
    public long offset;
    public long timestamp;
    public float label;
    /** Row keys, duplicates within the example merged. */
    public long[] keys;
    public float[] values;

    public BatchRecord() {}

    public BatchRecord(long offset, long timestamp, float label, long[] keys, float[] values) {
        this.offset = offset;
        this.timestamp = timestamp;
        this.label = label;
        this.keys = keys;
        this.values = values;
    }
}
