package io.streamtrain.model;

import java.io.Serializable;

/**
 * The math of one model family over pulled rows. Rows sit in a flat table, {@code width()} floats
 * each (linear weight, then the embedding); an example is the slice {@code [from, to)} of the
 * per-occurrence arrays {@code slots} (offset of the row in the table) and {@code values}. The bias row
 * is passed separately: it has a linear weight only. Trainer, exporter and scorer all call this,
 * so a served score is the training-time prediction.
 */
public interface Model extends Serializable {
    /** Floats per row: 1 + embedding dimension. */
    int width();

    /**
     * The logit of one example. {@code scratch} (length ≥ width) keeps per-example sums that
     * {@link #backward} reuses; call backward right after logit on the same example.
     */
    double logit(float[] table, int biasSlot, int[] slots, float[] values, int from, int to, double[] scratch);

    /**
     * Adds {@code dLogit} × ∂logit/∂row to {@code grad} (laid out like the table) for every row the
     * example touches, the bias included.
     */
    void backward(
            float[] table, int biasSlot, int[] slots, float[] values, int from, int to,
            double dLogit, double[] scratch, float[] grad);

    static double sigmoid(double z) {
        return z >= 0 ? 1.0 / (1.0 + Math.exp(-z)) : Math.exp(z) / (1.0 + Math.exp(z));
    }
}
