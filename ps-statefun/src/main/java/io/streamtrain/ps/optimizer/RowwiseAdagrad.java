package io.streamtrain.ps.optimizer;

/**
 * Row-wise Adagrad, as recommender embedding tables use it (FBGEMM's and TorchRec's default for
 * sparse tables): the embedding's coordinates share one accumulator, which grows by the mean of
 * their squared gradients, and the linear weight keeps its own (its gradients have another scale).
 * Two slots per row instead of one per weight: an FM dim-16 row is 108 bytes in RocksDB instead of
 * 168, so the parameter server writes, flushes, checkpoints and caches a third less.
 */
final class RowwiseAdagrad implements Optimizer {
    private static final long serialVersionUID = 1L;
    private final float lr;
    private final float l2;
    private final float initialAccumulator;

    RowwiseAdagrad(double lr, double l2, double initialAccumulator) {
        this.lr = (float) lr;
        this.l2 = (float) l2;
        this.initialAccumulator = (float) initialAccumulator;
    }

    @Override
    public float[] initialSlots(int width) {
        return width == 1 ? new float[] {initialAccumulator} : new float[] {initialAccumulator, initialAccumulator};
    }

    @Override
    public void apply(float[] w, float[] acc, float[] grad, int off, int occurrences) {
        float g0 = grad[off] + l2 * w[0];
        acc[0] += g0 * g0;
        w[0] -= lr * g0 / (float) Math.sqrt(acc[0]);
        int width = w.length;
        if (width == 1) {
            return;
        }
        float squares = 0;
        for (int i = 1; i < width; i++) {
            float g = grad[off + i] + l2 * w[i];
            squares += g * g;
        }
        acc[1] += squares / (width - 1);
        float step = lr / (float) Math.sqrt(acc[1]);
        for (int i = 1; i < width; i++) {
            w[i] -= step * (grad[off + i] + l2 * w[i]);
        }
    }
}
