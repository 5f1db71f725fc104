package io.streamtrain.model;

/**
 * Second-order factorization machine (Rendle 2010):
 * logit = b + Σ w_i x_i + ½ Σ_f [(Σ_i v_if x_i)² − Σ_i v_if² x_i²], in O(k·n).
 * Row layout: [w, v_1 … v_k]. {@code scratch[f]} holds s_f = Σ_i v_if x_i for the backward pass.
 */
public final class FactorizationMachine implements Model {
    private static final long serialVersionUID = 1L;
    private final int dim;
    private final int width;

    public FactorizationMachine(int dim) {
        if (dim < 1) {
            throw new IllegalArgumentException("fm needs dim >= 1, got " + dim);
        }
        this.dim = dim;
        this.width = dim + 1;
    }

    @Override
    public int width() {
        return width;
    }

    @Override
    public double logit(float[] table, int biasSlot, int[] slots, float[] values, int from, int to, double[] scratch) {
        double z = table[biasSlot];
        double squares = 0;
        for (int f = 0; f < dim; f++) {
            scratch[f] = 0;
        }
        for (int i = from; i < to; i++) {
            int base = slots[i];
            double x = values[i];
            z += table[base] * x;
            for (int f = 0; f < dim; f++) {
                double vx = table[base + 1 + f] * x;
                scratch[f] += vx;
                squares += vx * vx;
            }
        }
        double sumSq = 0;
        for (int f = 0; f < dim; f++) {
            sumSq += scratch[f] * scratch[f];
        }
        return z + 0.5 * (sumSq - squares);
    }

    @Override
    public void backward(
            float[] table, int biasSlot, int[] slots, float[] values, int from, int to,
            double dLogit, double[] scratch, float[] grad) {
        grad[biasSlot] += (float) dLogit;
        for (int i = from; i < to; i++) {
            int base = slots[i];
            double x = values[i];
            grad[base] += (float) (dLogit * x);
            for (int f = 0; f < dim; f++) {
                double v = table[base + 1 + f];
                grad[base + 1 + f] += (float) (dLogit * x * (scratch[f] - v * x));
            }
        }
    }
}
