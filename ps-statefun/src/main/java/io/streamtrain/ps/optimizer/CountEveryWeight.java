package io.streamtrain.ps.optimizer;

/**
 * The exactly-once oracle for dense parameters: ignores the gradient and adds the batch's example
 * count to every weight, so after any run each dense parameter equals the number of examples
 * trained (as the bias row's weight 0 does under {@link CountOptimizer}).
 */
final class CountEveryWeight implements Optimizer {
    private static final long serialVersionUID = 1L;

    @Override
    public float[] initialSlots(int width) {
        return new float[0];
    }

    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences) {
        for (int i = 0; i < w.length; i++) {
            w[i] += occurrences;
        }
    }

    /** Counts whole examples whatever the scale: a count is no step. */
    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences, float stepScale) {
        apply(w, slots, grad, off, occurrences);
    }
}
