package io.streamtrain.ps;

import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.RowInitializer;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.runtime.state.KeyGroupRange;

/**
 * A PS subtask's rows: the {@link RowCache} on the heap in front of the RocksDB map state, with
 * the rows' time to live applied to both. Changed rows stay in the cache until they go quiet or
 * leave it ({@link RowWriteBack}); a checkpoint copies those still changed ({@link #changedRows}).
 * Rows of the current element's key group are read and written here; a write to another key group
 * goes through the write-back.
 */
final class RowStore {
    private final MapState<Long, EmbeddingRow> stored;
    private final RowCache cache;
    private final RowWriteBack writeBack;
    private final RowExpiry expiry;
    private final RowInitializer initializer;
    private final Optimizer optimizer;
    private final PsMetrics metrics;
    private final int width;
    private final int slotWidth;
    /** The row a push updates when it is cached: read into this copy, changed, and put back. */
    private final EmbeddingRow scratch;
    /**
     * A push's changed rows when there is no row cache, written to RocksDB in one write batch (one
     * JNI write, not one per row), in the push's key order: pulls, and so pushes, list their keys
     * sorted (BatchAssembler), and RocksDB inserts sorted keys next to each other.
     */
    private final RowBatch uncachedChanges = new RowBatch();

    /** @param cacheRows rows the cache holds, 0 for none */
    RowStore(MapState<Long, EmbeddingRow> stored, int cacheRows, RowWriteBack writeBack, RowExpiry expiry,
             RowInitializer initializer, Optimizer optimizer, PsMetrics metrics) {
        this.stored = stored;
        this.writeBack = writeBack;
        this.expiry = expiry;
        this.initializer = initializer;
        this.optimizer = optimizer;
        this.metrics = metrics;
        this.width = initializer.width();
        this.slotWidth = optimizer.initialSlots(width).length;
        this.cache = new RowCache(cacheRows, width, slotWidth, writeBack::evicted);
        this.scratch = new EmbeddingRow(new float[width], new float[slotWidth]);
        metrics.changedRows(cache::changedCount);
    }

    /**
     * Copies the weights of {@code key}'s live row to {@code to[at ..]} and returns its version, or
     * returns -1 if it has none (then {@code to} is left alone).
     */
    long readWeights(long key, long now, float[] to, int at) throws Exception {
        int place = cachedPlace(key, now);
        if (place >= 0) {
            cache.copyWeights(place, to, at);
            return cache.version(place);
        }
        EmbeddingRow row = stored(key, now);
        if (row == null) {
            return -1;
        }
        System.arraycopy(row.weights, 0, to, at, width);
        return row.version;
    }

    /**
     * The live row of {@code key} from the cache or RocksDB, or null if it has none: a copy, which
     * the caller may change and hand to {@link #changed} (a cached row's copy is valid until the
     * next call). A row past its TTL that compaction has not removed yet counts as gone.
     */
    EmbeddingRow current(long key, long now) throws Exception {
        int place = cachedPlace(key, now);
        if (place >= 0) {
            return cache.read(place, scratch);
        }
        return stored(key, now);
    }

    /**
     * A row's deterministic first value, kept in the cache (not in RocksDB): the push that follows
     * the pull finds it there instead of looking it up and drawing it again. It is persisted by its
     * first update; until then RocksDB holding no row means the same row.
     */
    EmbeddingRow create(long key, long now) throws Exception {
        EmbeddingRow row = initializer.newRow(key, optimizer);
        row.updatedAt = now; // for the TTL check while it waits in the cache
        cache.put(key, row);
        return row;
    }

    /** Keeps {@code row}, just changed, as {@code key}'s (a key of the current key group); {@link #endPush} writes what the cache cannot. */
    void changed(long key, EmbeddingRow row) throws Exception {
        if (!cache.putChanged(key, row)) {
            uncachedChanges.add(key, row); // never the scratch copy: only a cache of no rows refuses a change
        }
    }

    /** After a push's rows: writes those the cache did not take. */
    void endPush() throws Exception {
        if (!uncachedChanges.isEmpty()) {
            stored.putAll(uncachedChanges);
            uncachedChanges.clear();
        }
    }

    /** Writes back the changed rows that went quiet (between pushes). */
    void writeBackQuiet(long now) throws Exception {
        writeBack.sweep(cache, now);
    }

    /** Writes every changed row to RocksDB: at the end of input. */
    void writeBackAll() throws Exception {
        writeBack.all(cache);
    }

    /**
     * A copy of every row the cache holds changed, newer than its RocksDB row, as one
     * {@link ChangedRows} value for the checkpoint's operator state (taken in the same synchronous
     * step as the RocksDB snapshot, so the two together are the model at the barrier). The rows
     * stay changed: they are written to RocksDB when they go quiet or leave the cache, and until
     * then every checkpoint carries them.
     */
    byte[] changedRows() {
        ChangedRows.Writer writer = new ChangedRows.Writer(cache.changedCount(), width, slotWidth);
        cache.writeChanged(writer);
        return writer.toBytes();
    }

    /** Writes the changed rows of a restored checkpoint that belong to {@code owned} to RocksDB; returns how many. */
    long restore(List<byte[]> changedRows, KeyGroupRange owned) throws Exception {
        return writeBack.restore(changedRows, owned);
    }

    /** The cache's place of {@code key}'s live row, or -1. */
    private int cachedPlace(long key, long now) {
        int place = cache.find(key);
        if (place < 0) {
            return -1;
        }
        if (expiry.expired(cache.updatedAt(place), now)) {
            metrics.rowsExpired.inc();
            cache.remove(key);
            return -1;
        }
        metrics.rowCacheHits.inc();
        return place;
    }

    /** The live row of {@code key} in RocksDB (then also cached), or null. */
    private EmbeddingRow stored(long key, long now) throws Exception {
        EmbeddingRow row = stored.get(key);
        if (row == null) {
            return null;
        }
        if (expiry.expired(row.updatedAt, now)) {
            metrics.rowsExpired.inc();
            return null;
        }
        metrics.rowCacheMisses.inc();
        cache.put(key, row);
        return row;
    }
}
