package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.EmbeddingRowSerializer;
import java.time.Duration;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The PS's keyed state, shared by the job and by the exporter (State Processor API). Flink key =
 * one PS key group ("bucket"); inside it, one RocksDB entry per row.
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

    private static StateTtlConfig ttl(Duration ttl) {
        return StateTtlConfig.newBuilder(ttl)
                .updateTtlOnCreateAndWrite()
                .returnExpiredIfNotCleanedUp()
                .cleanupInRocksdbCompactFilter(1000)
                .build();
    }
}
