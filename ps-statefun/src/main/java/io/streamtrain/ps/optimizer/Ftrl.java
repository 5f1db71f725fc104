package io.streamtrain.ps.optimizer;

/**
 * FTRL-Proximal (McMahan et al. 2013) for the linear weight; the embedding entries use Adagrad,
 * because FTRL's closed form starts every coordinate at zero, where a factorization machine's
 * pairwise gradients vanish. Slots: z, n, then one Adagrad accumulator per embedding entry.
 */
final class Ftrl implements Optimizer {
    private static final long serialVersionUID = 1L;
    private final double alpha;
    private final double beta;
    private final double l1;
    private final double l2;
    private final Adagrad embedding;

    Ftrl(double alpha, double beta, double l1, double l2, Adagrad embedding) {
        this.alpha = alpha;
        this.beta = beta;
        this.l1 = l1;
        this.l2 = l2;
        this.embedding = embedding;
    }

    @Override
    public float[] initialSlots(int width) {
        float[] slots = new float[2 + (width - 1)];
        float[] acc = embedding.initialSlots(width - 1);
        System.arraycopy(acc, 0, slots, 2, acc.length);
        return slots;
    }

    @Override
    public void apply(float[] w, float[] slots, float[] grad, int off, int occurrences) {
        double g = grad[off];
        double z = slots[0];
        double n = slots[1];
        double sigma = (Math.sqrt(n + g * g) - Math.sqrt(n)) / alpha;
        z += g - sigma * w[0];
        n += g * g;
        slots[0] = (float) z;
        slots[1] = (float) n;
        w[0] = Math.abs(z) <= l1 ? 0f : (float) (-(z - Math.signum(z) * l1) / ((beta + Math.sqrt(n)) / alpha + l2));
        embedding.applyRange(w, slots, 2, grad, off, 1, w.length, 1f);
    }
}
