package io.streamtrain.ps.row;

import io.streamtrain.model.deep.DenseLayout;
import io.streamtrain.schema.FeatureKey;

/**
 * How the PS stores a deep model's dense parameters: the flat parameter array
 * ({@link DenseLayout}) cut into chunks of {@link #WIDTH} floats, chunk c holding parameters
 * {@code [c·WIDTH, (c+1)·WIDTH)} (the last one padded with zeros), each chunk one PS row under the
 * key (field {@link FeatureKey#DENSE_FIELD}, id c). The keys hash over the key groups like any
 * feature's, so the chunks spread over the PS subtasks; every batch pulls and pushes all of them.
 */
public final class DenseChunks {
    /** Floats per chunk row: large enough that a 200k-parameter tower is ~800 rows, small enough to spread. */
    public static final int WIDTH = 256;

    private DenseChunks() {}

    /** Chunks of a layout of {@code size} parameters. */
    public static int count(int size) {
        return (size + WIDTH - 1) / WIDTH;
    }

    public static long key(int chunk) {
        return FeatureKey.of(FeatureKey.DENSE_FIELD, chunk);
    }

    /** The chunk a dense row key holds. */
    public static int chunkOf(long key) {
        return (int) FeatureKey.id(key);
    }

    /** Floats of {@code key}'s row in pulls and pushes: {@link #WIDTH} for a dense chunk, {@code sparseWidth} for any other row. */
    public static int rowWidth(long key, int sparseWidth) {
        return FeatureKey.isDense(key) ? WIDTH : sparseWidth;
    }

    /** Floats of the rows of {@code keys}, one after the other. */
    public static int floats(long[] keys, int sparseWidth) {
        int n = 0;
        for (long key : keys) {
            n += rowWidth(key, sparseWidth);
        }
        return n;
    }

    /** The row keys of every chunk of {@code layout}, in chunk order. */
    public static long[] keys(DenseLayout layout) {
        long[] keys = new long[count(layout.size())];
        for (int c = 0; c < keys.length; c++) {
            keys[c] = key(c);
        }
        return keys;
    }
}
