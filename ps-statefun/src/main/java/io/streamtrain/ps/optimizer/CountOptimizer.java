package io.streamtrain.ps.optimizer;

/**
 * Ignores the gradient and adds the occurrence count to weight 0. After any run, weight 0 (and the
 * row's count) must equal the number of input records containing the feature: the exactly-once
 * oracle.
 */
final class CountOptimizer implements Optimizer {
    private static final long serialVersionUID = 1L;

    @Override
    public float[] initialSlots(int width) {
        return new float[0];
    }

    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences) {
        w[0] += occurrences;
    }
}
