package io.streamtrain.train.worker;

/**
 * Logloss and AUC of predictions made before learning (progressive validation), over a sliding
 * window of the last {@code window} examples. AUC comes from a histogram of scores in fixed bins
 * (ties inside a bin count one half), so an update is O(1) and a read O(bins). {@link #baseLogloss}
 * is the yardstick for the logloss.
 */
public final class ProgressiveValidation {
    private static final int BINS = 4096;

    private final int window;
    private final int[] bin;
    private final boolean[] positive;
    private final double[] loss;
    private final long[] pos = new long[BINS];
    private final long[] neg = new long[BINS];
    private int next;
    private int filled;
    private double lossSum;

    public ProgressiveValidation(int window) {
        this.window = window;
        this.bin = new int[window];
        this.positive = new boolean[window];
        this.loss = new double[window];
    }

    public void add(double p, boolean label) {
        if (filled == window) {
            (positive[next] ? pos : neg)[bin[next]]--;
            lossSum -= loss[next];
        } else {
            filled++;
        }
        double clipped = Math.min(Math.max(p, 1e-15), 1 - 1e-15);
        double l = label ? -Math.log(clipped) : -Math.log(1 - clipped);
        int b = Math.min(BINS - 1, (int) (p * BINS));
        bin[next] = b;
        positive[next] = label;
        loss[next] = l;
        (label ? pos : neg)[b]++;
        lossSum += l;
        next = (next + 1) % window;
    }

    public int size() {
        return filled;
    }

    public double logloss() {
        return filled == 0 ? Double.NaN : lossSum / filled;
    }

    /** Positive labels among the window's examples. */
    public long positives() {
        long n = 0;
        for (long p : pos) {
            n += p;
        }
        return n;
    }

    /**
     * Logloss of the constant predictor that knows the window's positive rate: a model whose window
     * logloss is above it predicts worse than the base rate (miscalibrated or diverged). NaN for an
     * empty window.
     */
    public static double baseLogloss(long positives, long examples) {
        if (examples <= 0 || positives < 0) {
            return Double.NaN;
        }
        double rate = (double) positives / examples;
        return rate <= 0 || rate >= 1 ? 0 : -(rate * Math.log(rate) + (1 - rate) * Math.log(1 - rate));
    }

    /** The warning progress lines, summaries and reports show when {@code logloss} is above {@code base}; empty otherwise. */
    public static String worseThanBaseRate(double logloss, double base) {
        return logloss > base
                ? String.format(java.util.Locale.ROOT,
                        "window logloss %.4f is above the base-rate predictor's %.4f: the model predicts worse than a constant", logloss, base)
                : "";
    }

    public double baseLogloss() {
        return baseLogloss(positives(), filled);
    }

    public double auc() {
        long totalPos = 0;
        long totalNeg = 0;
        for (int b = 0; b < BINS; b++) {
            totalPos += pos[b];
            totalNeg += neg[b];
        }
        if (totalPos == 0 || totalNeg == 0) {
            return Double.NaN;
        }
        double area = 0;
        long negBelow = 0;
        for (int b = 0; b < BINS; b++) {
            area += pos[b] * (negBelow + 0.5 * neg[b]);
            negBelow += neg[b];
        }
        return area / ((double) totalPos * totalNeg);
    }
}
