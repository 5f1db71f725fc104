package io.streamtrain.ps.optimizer;

/**
 * Adam (Kingma and Ba 2015) over a row of dense parameters. Slots: the step count, then the first
 * moments, then the second moments, so a row carries its own bias correction wherever it moves.
 */
final class Adam implements Optimizer {
    private static final long serialVersionUID = 1L;
    private static final double BETA1 = 0.9;
    private static final double BETA2 = 0.999;
    private static final double EPSILON = 1e-8;
    private final double lr;

    Adam(double lr) {
        this.lr = lr;
    }

    @Override
    public float[] initialSlots(int width) {
        return new float[1 + 2 * width];
    }

    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences) {
        apply(w, slots, grad, off, occurrences, 1f);
    }

    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences, float stepScale) {
        int width = w.length;
        float t = ++slots[0];
        double step = stepScale * lr * Math.sqrt(1 - Math.pow(BETA2, t)) / (1 - Math.pow(BETA1, t));
        for (int i = 0; i < width; i++) {
            float g = grad[off + i];
            float m = slots[1 + i] = (float) (BETA1 * slots[1 + i] + (1 - BETA1) * g);
            float v = slots[1 + width + i] = (float) (BETA2 * slots[1 + width + i] + (1 - BETA2) * g * g);
            w[i] -= (float) (step * m / (Math.sqrt(v) + EPSILON));
        }
    }
}
