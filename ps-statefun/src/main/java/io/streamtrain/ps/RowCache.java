package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;

/**
 * The rows a PS subtask touched last, on the heap, in front of its RocksDB state. Every pull reads
 * a row and every push of the same batch, milliseconds later, reads and writes it again; served
 * from here, the push costs one RocksDB write instead of a read and a write, and a row pulled again
 * soon costs no read at all. Write-through: the PS puts every changed row into RocksDB at once, so
 * checkpoints never depend on this cache, and a restore starts with it empty. (A new row that a
 * pull drew waits here unwritten until its first update: RocksDB having no row means that same
 * deterministic row.)
 *
 * <p>The oldest rows leave first: a push comes within the batches in flight of its pull, so
 * insertion order serves it as well as recency would. Keys and rows sit in two flat arrays with
 * linear probing, because with a {@code LinkedHashMap} (a node and a boxed key per row, chains on
 * collisions) the cache's lookups were 40 % of the PS thread in a profile: memory stalls, not work.
 * The arrays start small and double as rows arrive, so a small table costs a small cache.
 */
final class RowCache {
    private static final int INITIAL_SLOTS = 1 << 10;
    /** Heap bytes of an {@link EmbeddingRow} object (header, two references, three longs), compressed oops. */
    private static final int ROW_OBJECT_BYTES = 48;
    /** Per row: a ring entry (8) and, at worst, four table slots (a long key and a reference: 12 each). */
    private static final int INDEX_BYTES_PER_ROW = 8 + 4 * 12;

    private final int capacity;
    private long[] keys;
    private EmbeddingRow[] rows;
    private int shift;
    /** Keys in insertion order, a ring: the next one to leave is at {@code head}. */
    private long[] order;
    private int head;
    private int queued;
    /** Rows in the table (fewer than {@code queued} after removals). */
    private int size;

    RowCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("row cache capacity must be positive, got " + capacity);
        }
        this.capacity = capacity;
        allocateTable(Math.min(INITIAL_SLOTS, tableSlotsFor(capacity)));
        order = new long[Math.min(capacity, INITIAL_SLOTS / 2)];
    }

    /**
     * How many rows of {@code weightWidth} weights and {@code slotWidth} optimizer slots fit in
     * {@code budgetBytes} of heap, counting the row objects and this cache's own arrays when full.
     */
    static int capacityFor(long budgetBytes, int weightWidth, int slotWidth) {
        long perRow = ROW_OBJECT_BYTES + floatArrayBytes(weightWidth) + floatArrayBytes(slotWidth) + INDEX_BYTES_PER_ROW;
        return (int) Math.min(1 << 29, budgetBytes / perRow);
    }

    private static long floatArrayBytes(int length) {
        return (16 + 4L * length + 7) / 8 * 8; // array header, then rounded to 8 bytes
    }

    int capacity() {
        return capacity;
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
        if (queued == capacity) {
            remove(order[head]); // may already be gone (removed since): then nothing to do
            head = (head + 1) % order.length;
            queued--;
        } else if (queued == order.length) {
            growOrder();
        }
        if (2 * (size + 1) > rows.length) {
            allocateTable(2 * rows.length); // never past tableSlotsFor(capacity): size <= capacity
        }
        insert(key, row);
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
        size--;
    }

    private void insert(long key, EmbeddingRow row) {
        int i = slot(key);
        while (rows[i] != null) {
            i = next(i);
        }
        keys[i] = key;
        rows[i] = row;
        size++;
    }

    /** A table of {@code slots} slots (a power of two) holding the current rows. */
    private void allocateTable(int slots) {
        long[] oldKeys = keys;
        EmbeddingRow[] oldRows = rows;
        keys = new long[slots];
        rows = new EmbeddingRow[slots];
        shift = 64 - Integer.numberOfTrailingZeros(slots);
        size = 0;
        if (oldRows != null) {
            for (int i = 0; i < oldRows.length; i++) {
                if (oldRows[i] != null) {
                    insert(oldKeys[i], oldRows[i]);
                }
            }
        }
    }

    private void growOrder() {
        long[] grown = new long[(int) Math.min(capacity, 2L * order.length)];
        for (int k = 0; k < queued; k++) {
            grown[k] = order[(head + k) % order.length];
        }
        order = grown;
        head = 0;
    }

    /** Table slots for {@code capacity} rows at most half full: a power of two. */
    private static int tableSlotsFor(int capacity) {
        return Integer.highestOneBit(Math.max(1, 2 * capacity - 1)) << 1;
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
