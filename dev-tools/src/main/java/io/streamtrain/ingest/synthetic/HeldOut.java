package io.streamtrain.ingest.synthetic;

import io.streamtrain.schema.Example;
import java.util.Locale;
import java.util.Random;
import java.util.function.ToDoubleFunction;

/** Held-out AUC and logloss of a scorer on fresh draws from a planted model, next to the planted model's own. */
public record HeldOut(int examples, double plantedAuc, double plantedLogloss, double learnedAuc, double learnedLogloss) {

    public static HeldOut evaluate(PlantedFm truth, ToDoubleFunction<Example> learned, int n, long seed) {
        Random random = new Random(seed);
        double[] planted = new double[n];
        double[] scores = new double[n];
        float[] labels = new float[n];
        for (int i = 0; i < n; i++) {
            Example e = truth.next(random);
            planted[i] = truth.predict(e);
            scores[i] = learned.applyAsDouble(e);
            labels[i] = e.getLabel();
        }
        return new HeldOut(n, Auc.of(planted, labels), logloss(planted, labels), Auc.of(scores, labels), logloss(scores, labels));
    }

    static double logloss(double[] p, float[] labels) {
        double sum = 0;
        for (int i = 0; i < p.length; i++) {
            double q = Math.min(Math.max(p[i], 1e-15), 1 - 1e-15);
            sum += labels[i] == 1f ? -Math.log(q) : -Math.log(1 - q);
        }
        return sum / p.length;
    }

    public String table() {
        return String.format(Locale.ROOT,
                "held-out (%d examples)   AUC      logloss%n  planted model         %.4f   %.4f%n  learned model         %.4f   %.4f",
                examples, plantedAuc, plantedLogloss, learnedAuc, learnedLogloss);
    }
}
