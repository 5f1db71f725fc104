package io.streamtrain.train.batch;

/**
 * A mini-batch: the unit of work ("task") whose effect on the model is applied exactly once. Its
 * id is (source partition, first offset); {@code batchSeq} numbers the partition's batches and is
 * what the PS deduplicates on. Examples are stored column-wise: example e owns features
 * {@code [starts[e], starts[e+1])}.
 */
public class MiniBatch {
    public int sourcePartition;
    public long batchSeq;
    public long firstOffset;
    public long lastOffset;
    public float[] labels;
    public int[] starts;
    public long[] keys;
    public float[] values;
    /** How many {@code PullRequest}s (one per PS key group) were sent for this batch. */
    public int pulls;
    /** When the batcher cut this batch and when it sent its pulls (wall-clock ms), passed on with its pushes: see {@code Push#cutAt}. */
    public long cutAt;
    public long sentAt;

    public MiniBatch() {}

    public int size() {
        return labels.length;
    }
}
