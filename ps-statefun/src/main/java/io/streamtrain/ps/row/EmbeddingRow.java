package io.streamtrain.ps.row;

/**
 * One row of the embedding table, the value of the PS's RocksDB map state. {@code weights} holds
 * the linear weight at index 0 and the k embedding entries after it; {@code slots} the optimizer's
 * per-coordinate state. Stored through {@link EmbeddingRowSerializer}; a change of fields needs a
 * new serializer version there.
 */
public class EmbeddingRow {
    public float[] weights;
    public float[] slots;
    /** Occurrences applied to this row: the exactly-once oracle counts these. */
    public long count;
    /** Pushes applied to this row: lets the PS see how many updates a gradient did not know about. */
    public long version;
    /** Wall-clock ms of the last applied update. */
    public long updatedAt;

    public EmbeddingRow() {}

    public EmbeddingRow(float[] weights, float[] slots) {
        this.weights = weights;
        this.slots = slots;
    }
}
