package io.streamtrain.ps.optimizer;

/** Plain SGD with L2 decay. */
final class Sgd implements Optimizer {
    private static final long serialVersionUID = 1L;
    private final float lr;
    private final float l2;

    Sgd(double lr, double l2) {
        this.lr = (float) lr;
        this.l2 = (float) l2;
    }

    @Override
    public float[] initialSlots(int width) {
        return new float[0];
    }

    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences) {
        apply(w, slots, grad, off, occurrences, 1f);
    }

    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences, float stepScale) {
        float rate = lr * stepScale;
        for (int i = 0; i < w.length; i++) {
            w[i] -= rate * (grad[off + i] + l2 * w[i]);
        }
    }
}
