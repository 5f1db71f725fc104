package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.Arrays;

/**
 * The rows a PS subtask touched last, on the heap, in front of its RocksDB state. Every pull reads
 * a row and every push of the same batch, milliseconds later, reads and writes it again; served
 * from here, neither touches RocksDB.
 *
 * <p>Write-back: a changed row stays here, marked changed, and RocksDB gets it once, when the PS
 * writes it back (rows that went quiet, in sorted batches), or earlier if the row must leave to
 * make room: then the cache hands it to its {@link WriteBack} first. Until then each checkpoint
 * copies it ({@link #writeChanged}), so every checkpoint holds every update before it. A hot row
 * that dozens of batches update a second thus costs no RocksDB write while it stays hot, and the
 * writes it saves are also memtable flushes and compactions saved. A row changed once is written
 * once either way, but in a sorted batch of its key group RocksDB inserts it for less than alone
 * (docs/decisions/0006-write-back-row-cache.md). A restore starts with the cache empty. (A new row that a
 * pull drew is not changed: RocksDB having no row means that same deterministic row.)
 *
 * <p>Rows are copied in and out of flat arrays, not kept as objects. A cache of a million row
 * objects that come and go is old-generation garbage, and in a long run G1's concurrent marking
 * took a quarter of the machine's CPU to find it (docs/benchmarks.md); a few large primitive arrays
 * overwritten in place make no garbage and hold no references to trace. The arrays grow in chunks
 * as rows arrive, so a small table costs a small cache.
 *
 * <p>The oldest rows leave first (a push comes within the batches in flight of its pull, so
 * insertion order serves it as well as recency would): a row's place in the insertion ring is its
 * place in the arrays, and a new row takes the place of the oldest. Keys map to places through an
 * open-addressing table with linear probing.
 */
final class RowCache {
    /** Takes a changed row that leaves the cache before it was written back. */
    @FunctionalInterface
    interface WriteBack {
        /** Writes {@code row} (the cache's scratch copy: use it before returning) as {@code key}'s. */
        void write(long key, EmbeddingRow row) throws Exception;
    }

    private static final int CHUNK_BITS = 10;
    private static final int CHUNK_ROWS = 1 << CHUNK_BITS;
    private static final int META = 3; // count, version, updatedAt
    private static final int INITIAL_SLOTS = 1 << 10;
    private static final int NONE = -1;

    private final int capacity;
    private final int weightWidth;
    private final int slotWidth;
    private final int rowFloats;
    /** Weights then slots of each place, CHUNK_ROWS places per chunk. */
    private final float[][] values;
    private final long[][] meta;
    /** The key stored at each place (its table entry may be gone since: removed, or moved to a newer place). */
    private final long[][] placeKeys;
    /** One bit per place: its row changed since it was last written back. */
    private final long[] changed;
    private int changedCount;
    private final WriteBack writeBack;
    /** The row of an evicted changed place on its way to {@link #writeBack}. */
    private final EmbeddingRow evicted;
    /** Places in use; once at capacity, the oldest place is at {@code oldest}. */
    private int used;
    private int oldest;

    /**
     * Slot i is {@code table[2i]}, the key, and {@code table[2i + 1]}, its place plus one (0: an
     * empty slot): side by side, so a probe reads one cache line, not one in each of two arrays.
     * (Two arrays cost a sixth of the PS thread in a profile, nearly all of it memory stalls.)
     */
    private long[] table;
    private int slots;
    private int shift;
    private int size;

    /**
     * A cache of up to {@code capacity} rows ({@code 0}: none) of the given widths; changed rows
     * that must leave it go to {@code writeBack}.
     */
    RowCache(int capacity, int weightWidth, int slotWidth, WriteBack writeBack) {
        if (capacity < 0) {
            throw new IllegalArgumentException("row cache capacity must be >= 0, got " + capacity);
        }
        this.capacity = capacity;
        this.weightWidth = weightWidth;
        this.slotWidth = slotWidth;
        this.rowFloats = weightWidth + slotWidth;
        int chunks = (capacity + CHUNK_ROWS - 1) / CHUNK_ROWS;
        values = new float[chunks][];
        meta = new long[chunks][];
        placeKeys = new long[chunks][];
        changed = new long[(capacity + 63) >>> 6];
        this.writeBack = writeBack;
        evicted = new EmbeddingRow(new float[weightWidth], new float[slotWidth]);
        allocateTable(Math.min(INITIAL_SLOTS, tableSlotsFor(capacity)));
    }

    /**
     * How many rows of {@code weightWidth} weights and {@code slotWidth} optimizer slots fit in
     * {@code budgetBytes} of heap: their floats, three longs, the place's key and, at
     * worst, four table slots of 16 bytes.
     */
    static int capacityFor(long budgetBytes, int weightWidth, int slotWidth) {
        long perRow = 4L * (weightWidth + slotWidth) + 8L * META + 8 + 4 * 16;
        return (int) Math.min(1 << 29, Math.max(0, budgetBytes) / perRow);
    }

    /** The place of {@code key}'s row, or -1 if the cache does not hold it. */
    int find(long key) {
        int i = slotOf(key);
        return i == NONE ? NONE : placeAt(i);
    }

    /** Copies the row at {@code place} into {@code into}, whose arrays have this cache's widths; returns it. */
    EmbeddingRow read(int place, EmbeddingRow into) {
        float[] v = values[place >>> CHUNK_BITS];
        int at = (place & (CHUNK_ROWS - 1)) * rowFloats;
        System.arraycopy(v, at, into.weights, 0, weightWidth);
        System.arraycopy(v, at + weightWidth, into.slots, 0, slotWidth);
        long[] m = meta[place >>> CHUNK_BITS];
        int mi = (place & (CHUNK_ROWS - 1)) * META;
        into.count = m[mi];
        into.version = m[mi + 1];
        into.updatedAt = m[mi + 2];
        return into;
    }

    /** Copies the weights of the row at {@code place} to {@code to[offset ..]}. */
    void copyWeights(int place, float[] to, int offset) {
        System.arraycopy(values[place >>> CHUNK_BITS], (place & (CHUNK_ROWS - 1)) * rowFloats, to, offset, weightWidth);
    }

    long version(int place) {
        return meta[place >>> CHUNK_BITS][(place & (CHUNK_ROWS - 1)) * META + 1];
    }

    long updatedAt(int place) {
        return meta[place >>> CHUNK_BITS][(place & (CHUNK_ROWS - 1)) * META + 2];
    }

    /**
     * Stores a copy of {@code row} as {@code key}'s, a row RocksDB holds as it is (read from it, or
     * a new row's first value): in its place if cached, else in a new one. A place marked changed
     * stays marked.
     */
    void put(long key, EmbeddingRow row) throws Exception {
        store(key, row);
    }

    /**
     * Stores a copy of {@code row}, just changed, as {@code key}'s, marked changed until it is written
     * back. Returns false if the cache holds no rows: then the caller must write the row to RocksDB now.
     */
    boolean putChanged(long key, EmbeddingRow row) throws Exception {
        int place = store(key, row);
        if (place == NONE) {
            return false;
        }
        if (!isChanged(place)) {
            changed[place >>> 6] |= 1L << place;
            changedCount++;
        }
        return true;
    }

    /** How many cached rows changed since they were last written back. */
    int changedCount() {
        return changedCount;
    }

    /**
     * The keys of the changed rows last updated (their {@code updatedAt}) before {@code updatedBefore},
     * in no particular order; {@code Long.MAX_VALUE} for all of them.
     */
    long[] changedKeys(long updatedBefore) {
        long[] keys = new long[changedCount];
        int n = 0;
        for (int word = 0; word < changed.length; word++) {
            for (long bits = changed[word]; bits != 0; bits &= bits - 1) {
                int place = (word << 6) | Long.numberOfTrailingZeros(bits);
                if (updatedAt(place) < updatedBefore) {
                    keys[n++] = placeKeys[place >>> CHUNK_BITS][place & (CHUNK_ROWS - 1)];
                }
            }
        }
        return n == keys.length ? keys : Arrays.copyOf(keys, n);
    }

    /** Writes every changed row to {@code writer}, which expects {@link #changedCount()} of them; they stay changed. */
    void writeChanged(ChangedRows.Writer writer) {
        for (int word = 0; word < changed.length; word++) {
            for (long bits = changed[word]; bits != 0; bits &= bits - 1) {
                int place = (word << 6) | Long.numberOfTrailingZeros(bits);
                int chunk = place >>> CHUNK_BITS;
                int row = place & (CHUNK_ROWS - 1);
                long[] m = meta[chunk];
                int mi = row * META;
                writer.add(placeKeys[chunk][row], values[chunk], row * rowFloats, m[mi], m[mi + 1], m[mi + 2]);
            }
        }
    }

    /** Marks the row at {@code place} as written back; it stays cached. */
    void written(int place) {
        unmarkChanged(place);
    }

    /** Its place, or {@link #NONE} when the cache holds no rows. */
    private int store(long key, EmbeddingRow row) throws Exception {
        if (capacity == 0) {
            return NONE;
        }
        if (row.weights.length != weightWidth || row.slots.length != slotWidth) {
            throw new IllegalArgumentException("row of " + row.weights.length + " weights and " + row.slots.length
                    + " slots in a cache of rows with " + weightWidth + " and " + slotWidth);
        }
        int place = find(key);
        if (place == NONE) {
            place = newPlace(key);
        }
        write(place, row);
        return place;
    }

    /** Drops {@code key}'s row, changed or not: the PS removes only expired rows, gone from RocksDB's view too. */
    void remove(long key) {
        int i = slotOf(key);
        if (i != NONE) {
            unmarkChanged(placeAt(i));
            removeSlot(i);
        }
    }

    private boolean isChanged(int place) {
        return (changed[place >>> 6] & (1L << place)) != 0;
    }

    private void unmarkChanged(int place) {
        if (isChanged(place)) {
            changed[place >>> 6] &= ~(1L << place);
            changedCount--;
        }
    }

    private void removeSlot(int i) {
        // Backward-shift deletion: move later entries of the probe run into the gap, so that
        // every remaining key is still found from its home slot without tombstones.
        for (int j = next(i); table[2 * j + 1] != 0; j = next(j)) {
            int home = slot(table[2 * j]);
            boolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!stays) {
                table[2 * i] = table[2 * j];
                table[2 * i + 1] = table[2 * j + 1];
                i = j;
            }
        }
        table[2 * i + 1] = 0;
        size--;
    }

    /**
     * A place for a new key: the next unused one, or once all are used, the oldest's, whose row
     * goes to {@link #writeBack} first if it changed.
     */
    private int newPlace(long key) throws Exception {
        int place;
        if (used < capacity) {
            place = used++;
            int chunk = place >>> CHUNK_BITS;
            if (values[chunk] == null) {
                values[chunk] = new float[CHUNK_ROWS * rowFloats];
                meta[chunk] = new long[CHUNK_ROWS * META];
                placeKeys[chunk] = new long[CHUNK_ROWS];
            }
        } else {
            place = oldest;
            oldest = (oldest + 1) % capacity;
            long previousKey = placeKeys[place >>> CHUNK_BITS][place & (CHUNK_ROWS - 1)];
            if (isChanged(place)) { // then its key is still cached here: remove() unmarks
                writeBack.write(previousKey, read(place, evicted));
                unmarkChanged(place);
            }
            int previous = slotOf(previousKey);
            if (previous != NONE && placeAt(previous) == place) { // else removed, or cached again in a newer place
                removeSlot(previous);
            }
        }
        placeKeys[place >>> CHUNK_BITS][place & (CHUNK_ROWS - 1)] = key;
        if (2 * (size + 1) > slots) {
            allocateTable(2 * slots); // never past tableSlotsFor(capacity): size <= capacity
        }
        insert(key, place);
        return place;
    }

    private void write(int place, EmbeddingRow row) {
        float[] v = values[place >>> CHUNK_BITS];
        int at = (place & (CHUNK_ROWS - 1)) * rowFloats;
        System.arraycopy(row.weights, 0, v, at, weightWidth);
        System.arraycopy(row.slots, 0, v, at + weightWidth, slotWidth);
        long[] m = meta[place >>> CHUNK_BITS];
        int mi = (place & (CHUNK_ROWS - 1)) * META;
        m[mi] = row.count;
        m[mi + 1] = row.version;
        m[mi + 2] = row.updatedAt;
    }

    private void insert(long key, int place) {
        int i = slot(key);
        while (table[2 * i + 1] != 0) {
            i = next(i);
        }
        table[2 * i] = key;
        table[2 * i + 1] = place + 1;
        size++;
    }

    /** A table of {@code slots} slots (a power of two) holding the current keys. */
    private void allocateTable(int slots) {
        long[] old = table;
        table = new long[2 * slots];
        this.slots = slots;
        shift = 64 - Integer.numberOfTrailingZeros(slots);
        size = 0;
        if (old != null) {
            for (int i = 0; i < old.length; i += 2) {
                if (old[i + 1] != 0) {
                    insert(old[i], (int) old[i + 1] - 1);
                }
            }
        }
    }

    /** Table slots for {@code capacity} rows at most half full: a power of two. */
    private static int tableSlotsFor(int capacity) {
        return Integer.highestOneBit(Math.max(1, 2 * capacity - 1)) << 1;
    }

    private int slotOf(long key) {
        for (int i = slot(key); table[2 * i + 1] != 0; i = next(i)) {
            if (table[2 * i] == key) {
                return i;
            }
        }
        return NONE;
    }

    private int placeAt(int slot) {
        return (int) table[2 * slot + 1] - 1;
    }

    /** Fibonacci hashing: the top bits of key × 2^64/φ, well spread even for (field, small id) keys. */
    private int slot(long key) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
    }

    private int next(int i) {
        return (i + 1) & (slots - 1);
    }
}
