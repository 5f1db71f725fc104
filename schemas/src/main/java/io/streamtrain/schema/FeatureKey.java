package io.streamtrain.schema;

/**
 * Packs a sparse feature's (field, id) into one {@code long}: the row key of the embedding table.
 * A long key keeps RocksDB keys at 8 bytes and needs no object per feature on the hot path.
 */
public final class FeatureKey {
    public static final int FIELD_BITS = 16;
    public static final int ID_BITS = 48;
    public static final int MAX_FIELD = (1 << FIELD_BITS) - 1;
    public static final long MAX_ID = (1L << ID_BITS) - 1;
    /** The global bias row: the reserved last field, id 0. Input features may not use it. */
    public static final long BIAS = of(MAX_FIELD, 0);
    /** The reserved field of the deep models' dense parameter chunks (id = chunk index). Input features may not use it. */
    public static final int DENSE_FIELD = MAX_FIELD - 1;

    private FeatureKey() {}

    public static long of(int field, long id) {
        if (field < 0 || field > MAX_FIELD) {
            throw new IllegalArgumentException("field " + field + " out of range 0.." + MAX_FIELD);
        }
        if (id < 0 || id > MAX_ID) {
            throw new IllegalArgumentException("feature id " + id + " out of range 0.." + MAX_ID);
        }
        return ((long) field << ID_BITS) | id;
    }

    public static int field(long key) {
        return (int) (key >>> ID_BITS);
    }

    public static long id(long key) {
        return key & MAX_ID;
    }

    /** True when (field, id) can be packed and is not a reserved field (bias, dense chunks). */
    public static boolean isValidInput(int field, long id) {
        return field >= 0 && field < DENSE_FIELD && id >= 0 && id <= MAX_ID;
    }

    /** Whether {@code key} is a dense parameter chunk's row. */
    public static boolean isDense(long key) {
        return field(key) == DENSE_FIELD;
    }
}
