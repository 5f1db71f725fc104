package io.streamtrain.ingest.synthetic;

import java.util.Arrays;

/** Area under the ROC curve by ranks (Mann-Whitney U), ties counted half. */
public final class Auc {
    private Auc() {}

    /** @param labels 1 = positive, anything else negative; NaN when one class is absent */
    public static double of(double[] scores, float[] labels) {
        if (scores.length != labels.length) {
            throw new IllegalArgumentException("scores and labels differ in length");
        }
        int n = scores.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(scores[a], scores[b]));
        double positiveRankSum = 0;
        long positives = 0;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j + 1 < n && scores[order[j + 1]] == scores[order[i]]) {
                j++;
            }
            double averageRank = (i + j) / 2.0 + 1; // 1-based ranks, ties share their mean
            for (int k = i; k <= j; k++) {
                if (labels[order[k]] == 1f) {
                    positiveRankSum += averageRank;
                    positives++;
                }
            }
            i = j + 1;
        }
        long negatives = n - positives;
        if (positives == 0 || negatives == 0) {
            return Double.NaN;
        }
        return (positiveRankSum - positives * (positives + 1) / 2.0) / ((double) positives * negatives);
    }
}
