package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.EmbeddingRowSerializer;
import java.time.Duration;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The PS's state, shared by the job and by the exporter (State Processor API). Keyed state: Flink
 * key = one PS key group ("bucket"); inside it, one RocksDB entry per row. Operator state: the rows
 * changed since they were last written to RocksDB ({@link #changedRows()}), which take the place
 * of their RocksDB rows.
 */
public final class PsState {
    /** Operator uid of the parameter server in every training job. */
    public static final String PS_UID = "streamtrain-ps";

    private PsState() {}

    /** Row key (field << 48 | id) → row. */
    public static MapStateDescriptor<Long, EmbeddingRow> rows(Duration ttl) {
        MapStateDescriptor<Long, EmbeddingRow> d =
                new MapStateDescriptor<>("rows", LongSerializer.INSTANCE, EmbeddingRowSerializer.INSTANCE);
        if (ttl != null) {
            d.enableTimeToLive(ttl(ttl));
        }
        return d;
    }

    /**
     * Dense chunk key → chunk row ({@code io.streamtrain.ps.row.DenseChunks}): a deep model's dense
     * parameters, {@code DenseChunks.WIDTH} weights per row. No TTL: every batch updates them.
     */
    public static MapStateDescriptor<Long, EmbeddingRow> denseRows() {
        return new MapStateDescriptor<>("dense-rows", LongSerializer.INSTANCE, EmbeddingRowSerializer.INSTANCE);
    }

    /**
     * Dense chunk key → the updates its recent batches missed between pull and push, a running
     * average ({@code DenseRows}): kept with the chunks, so that a recovery scales the replayed dense
     * steps exactly as the first run did.
     */
    public static MapStateDescriptor<Long, Double> denseUsualMissed() {
        return new MapStateDescriptor<>("dense-usual-missed", Types.LONG, Types.DOUBLE);
    }

    /** Row key → occurrences seen while the feature is below the admission frequency. */
    public static MapStateDescriptor<Long, Integer> pending(Duration ttl) {
        MapStateDescriptor<Long, Integer> d = new MapStateDescriptor<>("pending", Types.LONG, Types.INT);
        if (ttl != null) {
            d.enableTimeToLive(ttl(ttl));
        }
        return d;
    }

    /**
     * Source partition → sequence number of the last mini-batch applied to this key group. A push
     * at or below it is a replayed duplicate and is dropped: this makes at-least-once feedback
     * exactly-once in effect.
     */
    public static MapStateDescriptor<Integer, Long> appliedBatches() {
        return new MapStateDescriptor<>("applied-batches", Types.INT, Types.LONG);
    }

    /** Name of {@link #changedRows()}, for readers of a checkpoint. */
    public static final String CHANGED_ROWS = "changed-rows";

    /**
     * Operator (union list) state: each subtask's rows that its row cache held newer than its
     * RocksDB rows at the checkpoint, one {@link ChangedRows} value per subtask. Union state, so
     * that after a rescale every subtask sees them all and takes the rows of its own key groups.
     */
    public static ListStateDescriptor<byte[]> changedRows() {
        return new ListStateDescriptor<>(CHANGED_ROWS, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
    }

    private static StateTtlConfig ttl(Duration ttl) {
        return StateTtlConfig.newBuilder(ttl)
                .updateTtlOnCreateAndWrite()
                .returnExpiredIfNotCleanedUp()
                .cleanupInRocksdbCompactFilter(1000)
                .build();
    }
}
