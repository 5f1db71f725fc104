package io.streamtrain.schema;

import java.util.Arrays;
import java.util.List;

/**
 * An example's features as the row keys and values the model sees: packed with {@link FeatureKey},
 * sorted, a feature listed twice merged into one with its values summed. Training and scoring both
 * go through this, so they see the same rows.
 */
public record ExampleRows(long[] keys, float[] values) {

    /** Assumes every (field, id) is valid input ({@link FeatureKey#isValidInput}). */
    public static ExampleRows of(List<Feature> features) {
        int n = features.size();
        long[] keys = new long[n];
        float[] values = new float[n];
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            Feature f = features.get(i);
            keys[i] = FeatureKey.of(f.getField(), f.getId());
            values[i] = f.getValue();
            sorted &= i == 0 || keys[i - 1] < keys[i];
        }
        return sorted ? new ExampleRows(keys, values) : sortAndMerge(keys, values);
    }

    private static ExampleRows sortAndMerge(long[] keys, float[] values) {
        int n = keys.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(keys[a], keys[b]));
        long[] k = new long[n];
        float[] v = new float[n];
        int m = 0;
        for (int idx : order) {
            if (m > 0 && k[m - 1] == keys[idx]) {
                v[m - 1] += values[idx];
            } else {
                k[m] = keys[idx];
                v[m] = values[idx];
                m++;
            }
        }
        return new ExampleRows(Arrays.copyOf(k, m), Arrays.copyOf(v, m));
    }
}
