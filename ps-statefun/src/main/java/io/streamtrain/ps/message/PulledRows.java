package io.streamtrain.ps.message;

/**
 * PS → worker: the current weights of the rows a {@link PullRequest} asked for, row-major,
 * {@code width} floats per key. A feature that is not admitted yet comes back as zeros.
 */
public class PulledRows {
    public int keyGroup;
    public int sourcePartition;
    public long batchSeq;
    /** Wall-clock ms of the pull; carried to the push so the PS can measure gradient staleness. */
    public long pulledAt;
    public long[] keys;
    public float[] weights;
    /** Each row's {@code EmbeddingRow#version} at the pull (0 for a row not created yet). */
    public long[] versions;

    public PulledRows() {}

    public PulledRows(int keyGroup, int sourcePartition, long batchSeq, long pulledAt, long[] keys, float[] weights, long[] versions) {
        this.keyGroup = keyGroup;
        this.sourcePartition = sourcePartition;
        this.batchSeq = batchSeq;
        this.pulledAt = pulledAt;
        this.keys = keys;
        this.weights = weights;
        this.versions = versions;
    }
}
