package io.streamtrain.train.worker;

import java.util.Arrays;

/**
 * Row key → offset of its row in a batch's weight table. A batch looks up every feature it holds
 * (~10k for 1024 examples), so this is an open-addressing map of primitives, not a boxed HashMap.
 */
final class RowOffsets {
    private final long[] keys;
    private final int[] offsets;
    private final int mask;

    RowOffsets(int rows) {
        int size = Integer.highestOneBit(Math.max(2, rows) * 2 - 1) << 1; // a power of two, at most half full
        keys = new long[size];
        offsets = new int[size];
        Arrays.fill(offsets, -1);
        mask = size - 1;
    }

    void put(long key, int offset) {
        int i = slot(key);
        while (offsets[i] >= 0 && keys[i] != key) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        offsets[i] = offset;
    }

    /** The offset of {@code key}'s row; a key that was not put is a bug upstream (its row was not pulled). */
    int get(long key) {
        for (int i = slot(key); offsets[i] >= 0; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return offsets[i];
            }
        }
        throw new IllegalStateException("no pulled row for key " + key);
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
