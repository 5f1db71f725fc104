package io.streamtrain.model;

/** logit = bias + Σ w_i x_i. Rows are width 1. */
public final class LogisticRegression implements Model {
    private static final long serialVersionUID = 1L;

    @Override
    public int width() {
        return 1;
    }

    @Override
    public double logit(float[] table, int biasSlot, int[] slots, float[] values, int from, int to, double[] scratch) {
        double z = table[biasSlot];
        for (int i = from; i < to; i++) {
            z += table[slots[i]] * (double) values[i];
        }
        return z;
    }

    @Override
    public void backward(
            float[] table, int biasSlot, int[] slots, float[] values, int from, int to,
            double dLogit, double[] scratch, float[] grad) {
        grad[biasSlot] += (float) dLogit;
        for (int i = from; i < to; i++) {
            grad[slots[i]] += (float) (dLogit * values[i]);
        }
    }
}
