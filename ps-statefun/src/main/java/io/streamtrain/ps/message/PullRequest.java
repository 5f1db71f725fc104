package io.streamtrain.ps.message;

/**
 * Batcher → PS: the distinct row keys of one mini-batch that live in one PS key group. One message
 * per (batch, key group), not per feature, to keep shuffles and serialisation off the hot path.
 */
public class PullRequest {
    /** The PS key group (bucket) all {@link #keys} belong to. */
    public int keyGroup;
    public int sourcePartition;
    public long batchSeq;
    public long[] keys;

    public PullRequest() {}

    public PullRequest(int keyGroup, int sourcePartition, long batchSeq, long[] keys) {
        this.keyGroup = keyGroup;
        this.sourcePartition = sourcePartition;
        this.batchSeq = batchSeq;
        this.keys = keys;
    }
}
