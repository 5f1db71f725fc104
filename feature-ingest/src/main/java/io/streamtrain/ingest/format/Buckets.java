package io.streamtrain.ingest.format;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Turns a number into a bucket id, so numeric inputs become one-hot categorical features:
 * logarithmic ({@link #LOG2}, {@link FeatureHashing#logBucket}: 0 for v &lt; 0, else
 * floor(log2(floor(v) + 1)) + 1) or explicit ascending boundaries b0 &lt; b1 &lt; ... (id 0 for
 * v &lt; b0, id i for b(i-1) &lt;= v &lt; b(i), id n for v &gt;= b(n-1)).
 */
public final class Buckets implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final Buckets LOG2 = new Buckets(null);

    private final double[] boundaries; // null: log2

    private Buckets(double[] boundaries) {
        this.boundaries = boundaries;
    }

    /** Explicit boundaries, strictly ascending and finite. */
    public static Buckets of(double... boundaries) {
        if (boundaries.length == 0) {
            throw new IllegalArgumentException("bucket boundaries: need at least one");
        }
        for (int i = 0; i < boundaries.length; i++) {
            if (!Double.isFinite(boundaries[i]) || (i > 0 && boundaries[i] <= boundaries[i - 1])) {
                throw new IllegalArgumentException("bucket boundaries must be finite and strictly ascending: "
                        + Arrays.toString(boundaries));
            }
        }
        return new Buckets(boundaries.clone());
    }

    /** {@code log2} or comma-separated boundaries such as {@code 0,1,10,100}. */
    public static Buckets parse(String spec) {
        String s = spec.trim();
        if (s.equalsIgnoreCase("log2")) {
            return LOG2;
        }
        try {
            return of(Arrays.stream(s.split(",")).map(String::trim).mapToDouble(Double::parseDouble).toArray());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("buckets '" + spec + "': expected log2 or comma-separated numbers", e);
        }
    }

    public long bucket(long v) {
        return boundaries == null ? FeatureHashing.logBucket(v) : bucket((double) v);
    }

    public long bucket(double v) {
        if (boundaries == null) {
            return FeatureHashing.logBucket(v >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.floor(v));
        }
        int i = Arrays.binarySearch(boundaries, v);
        return i >= 0 ? i + 1 : -i - 1;
    }

    public boolean isLog2() {
        return boundaries == null;
    }

    @Override
    public String toString() {
        return boundaries == null ? "log2" : Arrays.toString(boundaries);
    }
}
