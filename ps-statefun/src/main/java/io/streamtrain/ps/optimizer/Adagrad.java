package io.streamtrain.ps.optimizer;

/** Adagrad: per-coordinate step lr / sqrt(sum of squared gradients). Slots: the accumulators. */
final class Adagrad implements Optimizer {
    private static final long serialVersionUID = 1L;
    private final float lr;
    private final float l2;
    private final float initialAccumulator;

    Adagrad(double lr, double l2, double initialAccumulator) {
        this.lr = (float) lr;
        this.l2 = (float) l2;
        this.initialAccumulator = (float) initialAccumulator;
    }

    @Override
    public float[] initialSlots(int width) {
        float[] acc = new float[width];
        java.util.Arrays.fill(acc, initialAccumulator);
        return acc;
    }

    @Override
    public void apply(float[] w, float[] acc, float[] grad, int off, int occurrences) {
        applyRange(w, acc, 0, grad, off, 0, w.length, 1f);
    }

    @Override
    public void apply(float[] w, float[] acc, float[] grad, int off, int occurrences, float stepScale) {
        applyRange(w, acc, 0, grad, off, 0, w.length, stepScale);
    }

    /** Updates weights [from, to) with accumulators starting at {@code accOff}, steps scaled by {@code stepScale}. */
    void applyRange(float[] w, float[] acc, int accOff, float[] grad, int off, int from, int to, float stepScale) {
        float rate = lr * stepScale;
        for (int i = from; i < to; i++) {
            float g = grad[off + i] + l2 * w[i];
            int a = accOff + i - from;
            acc[a] += g * g;
            w[i] -= rate * g / (float) Math.sqrt(acc[a]);
        }
    }
}
