package io.streamtrain.ps.message;

/**
 * Worker → (feedback topic) → PS: one mini-batch's summed gradients for the rows of one PS key
 * group. Travels through Kafka as the Avro {@code GradientPush}; inside Flink as this POJO, so the
 * hot path copies primitive arrays, never boxed lists.
 */
public class Push {
    public int keyGroup;
    public int sourcePartition;
    public long batchSeq;
    public long firstOffset;
    public long pulledAt;
    /**
     * When the batcher cut the batch and when it sent its pulls (wall-clock ms, 0 if not known):
     * diagnostics only, never read by the PS, for following a record's way to the model ({@code
     * bench freshness}).
     */
    public long cutAt;
    public long sentAt;
    public long[] keys;
    public int[] occurrences;
    /** The rows' versions at the pull, echoed back from {@link PulledRows#versions}. */
    public long[] versions;
    /** Row-major, keys.length × row width. */
    public float[] gradients;

    public Push() {}

    public Push(int keyGroup, int sourcePartition, long batchSeq, long firstOffset, long pulledAt,
                long[] keys, int[] occurrences, long[] versions, float[] gradients) {
        this.keyGroup = keyGroup;
        this.sourcePartition = sourcePartition;
        this.batchSeq = batchSeq;
        this.firstOffset = firstOffset;
        this.pulledAt = pulledAt;
        this.keys = keys;
        this.occurrences = occurrences;
        this.versions = versions;
        this.gradients = gradients;
    }
}
