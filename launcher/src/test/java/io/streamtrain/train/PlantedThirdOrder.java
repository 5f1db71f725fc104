package io.streamtrain.train;

import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A teacher no factorization machine can imitate: each example has one id per field (uniform over
 * {@code vocabulary}), each (field, id) a hidden scalar u ~ N(0, 1), and
 * logit = bias + linear · Σ_{f&lt;3} u_f + cubic · u_0 u_1 u_2 + Σ_{f≥3} noise weights.
 * The third-order term is uncorrelated with every linear and pairwise term of the features (its
 * odd moments vanish), so an FM learns only the rest; the linear part lets a deep model's
 * embeddings find u, from which its tower can form the product.
 */
final class PlantedThirdOrder {
    static final int FIELDS = 6;
    private final int vocabulary;
    private final double linear;
    private final double cubic;
    private final double[][] u;
    private final double[][] noise;

    PlantedThirdOrder(long seed, int vocabulary, double linear, double cubic) {
        this.vocabulary = vocabulary;
        this.linear = linear;
        this.cubic = cubic;
        Random r = new Random(seed);
        u = new double[FIELDS][vocabulary];
        noise = new double[FIELDS][vocabulary];
        for (int f = 0; f < FIELDS; f++) {
            for (int i = 0; i < vocabulary; i++) {
                u[f][i] = r.nextGaussian();
                noise[f][i] = r.nextGaussian() * 0.3;
            }
        }
    }

    Example next(Random r) {
        int[] ids = new int[FIELDS];
        List<Feature> features = new ArrayList<>(FIELDS);
        for (int f = 0; f < FIELDS; f++) {
            ids[f] = r.nextInt(vocabulary);
            features.add(new Feature(f, (long) ids[f], 1f));
        }
        float label = r.nextDouble() < sigmoid(logit(ids)) ? 1f : 0f;
        return new Example("planted", Instant.EPOCH, label, features, List.of(), 1f);
    }

    /** The teacher's own probability: the best any model can do. */
    double predict(Example e) {
        int[] ids = new int[FIELDS];
        for (Feature f : e.getFeatures()) {
            ids[f.getField()] = (int) f.getId();
        }
        return sigmoid(logit(ids));
    }

    private double logit(int[] ids) {
        double z = -0.5;
        for (int f = 0; f < 3; f++) {
            z += linear * u[f][ids[f]];
        }
        for (int f = 3; f < FIELDS; f++) {
            z += noise[f][ids[f]];
        }
        return z + cubic * u[0][ids[0]] * u[1][ids[1]] * u[2][ids[2]];
    }

    private static double sigmoid(double z) {
        return 1 / (1 + Math.exp(-z));
    }
}
