package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;

/**
 * The rows a PS subtask touched last, on the heap, in front of its RocksDB state. Every pull reads
 * a row and every push of the same batch, milliseconds later, reads and writes it again; served
 * from here, the push costs one RocksDB write instead of a read and a write. Write-through: the
 * PS puts every changed row into RocksDB at once, so checkpoints never depend on this cache, and
 * a restore starts with it empty. (A new row that a pull drew waits here unwritten until its first
 * update: RocksDB having no row means that same deterministic row.)
 *
 * <p>The oldest rows leave first: a push comes within the batches in flight of its pull, so
 * insertion order serves it as well as recency would. Keys and rows sit in two flat arrays with
 * linear probing, because with a {@code LinkedHashMap} (a node and a boxed key per row, chains on
 * collisions) the cache's lookups were 40 % of the PS thread in a profile: memory stalls, not work.
 */
final class RowCache {
    private final long[] keys;
    private final EmbeddingRow[] rows;
    private final int shift;
    /** Keys in insertion order, a ring of {@code capacity}: the next one to leave is at {@code head}. */
    private final long[] order;
    private int head;
    private int queued;

    RowCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("row cache capacity must be positive, got " + capacity);
        }
        int bits = 64 - Long.numberOfLeadingZeros(2L * capacity - 1); // table at most half full
        keys = new long[1 << bits];
        rows = new EmbeddingRow[1 << bits];
        shift = 64 - bits;
        order = new long[capacity];
    }

    /** The cached row, or null. */
    EmbeddingRow get(long key) {
        for (int i = slot(key); rows[i] != null; i = next(i)) {
            if (keys[i] == key) {
                return rows[i];
            }
        }
        return null;
    }

    void put(long key, EmbeddingRow row) {
        int i = find(key);
        if (i >= 0) {
            rows[i] = row;
            return;
        }
        if (queued == order.length) {
            remove(order[head]); // may already be gone (removed since): then nothing to do
            head = (head + 1) % order.length;
            queued--;
        }
        i = slot(key);
        while (rows[i] != null) {
            i = next(i);
        }
        keys[i] = key;
        rows[i] = row;
        order[(head + queued) % order.length] = key;
        queued++;
    }

    void remove(long key) {
        int i = find(key);
        if (i < 0) {
            return;
        }
        // Backward-shift deletion: move later entries of the probe run into the gap, so that
        // every remaining key is still found from its home slot without tombstones.
        for (int j = next(i); rows[j] != null; j = next(j)) {
            int home = slot(keys[j]);
            boolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!stays) {
                keys[i] = keys[j];
                rows[i] = rows[j];
                i = j;
            }
        }
        rows[i] = null;
    }

    private int find(long key) {
        for (int i = slot(key); rows[i] != null; i = next(i)) {
            if (keys[i] == key) {
                return i;
            }
        }
        return -1;
    }

    /** Fibonacci hashing: the top bits of key × 2^64/φ, well spread even for (field, small id) keys. */
    private int slot(long key) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
    }

    private int next(int i) {
        return (i + 1) & (rows.length - 1);
    }
}
