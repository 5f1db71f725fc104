package io.streamtrain.ingest.synthetic;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A planted second-order factorization machine: the known truth that synthetic data is drawn
 * from, so a trained model's AUC/logloss can be compared with the best achievable.
 *
 * <p>Each example has one categorical feature per field f (id drawn from a Zipf law over
 * {@code 0..vocabulary-1}, id 0 the most popular; value 1) and label ~ Bernoulli(p) with
 * p = sigmoid(bias + Σ w[f][id] + Σ_{i&lt;j} &lt;v_i, v_j&gt;).
 *
 * <p>Weights are drawn N(0,1) from {@code new Random(seed)} and then scaled, on a calibration
 * sample, so the linear and the pairwise part each contribute half of the logit variance with a
 * total standard deviation of {@code logitStd}; the bias is then solved so the mean of p is
 * {@code positiveRate}. The defaults (std 1.35, rate 0.3) put the planted AUC at 0.79-0.80 for
 * every seed tried (std 1.2 gives ~0.78, 1.5 ~0.82, 2.0 ~0.87). Everything is a function of the
 * constructor arguments; {@link #next} is a function of the given Random.
 */
public final class PlantedFm {
    public static final int DEFAULT_FIELDS = 8;
    public static final int DEFAULT_VOCABULARY = 1000;
    public static final double DEFAULT_ZIPF_EXPONENT = 1.1;
    public static final int DEFAULT_DIM = 4;
    public static final double DEFAULT_POSITIVE_RATE = 0.3;
    public static final double DEFAULT_LOGIT_STD = 1.35;
    private static final int CALIBRATION_SAMPLES = 20_000;
    private static final int TRUTH_VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final long seed;
    private final int numFields;
    private final int vocabulary;
    private final double zipfExponent;
    private final int dim;
    private final double positiveRate;
    private final double logitStd;
    private final double bias;
    private final float[][] w; // [field][id]
    private final float[][] v; // [field][id * dim + k]
    private final Zipf zipf;

    /** Defaults: 8 fields, 1000 ids per field, Zipf 1.1, dim 4. */
    public PlantedFm(long seed) {
        this(seed, DEFAULT_FIELDS, DEFAULT_VOCABULARY, DEFAULT_ZIPF_EXPONENT, DEFAULT_DIM);
    }

    public PlantedFm(long seed, int numFields, int vocabulary, double zipfExponent, int dim) {
        this(seed, numFields, vocabulary, zipfExponent, dim, DEFAULT_POSITIVE_RATE, DEFAULT_LOGIT_STD);
    }

    public PlantedFm(long seed, int numFields, int vocabulary, double zipfExponent, int dim,
            double positiveRate, double logitStd) {
        if (numFields < 2 || vocabulary < 1 || dim < 1 || zipfExponent <= 0 || logitStd <= 0
                || positiveRate <= 0 || positiveRate >= 1) {
            throw new IllegalArgumentException("need numFields >= 2, vocabulary >= 1, dim >= 1, zipfExponent > 0, "
                    + "logitStd > 0, 0 < positiveRate < 1");
        }
        this.seed = seed;
        this.numFields = numFields;
        this.vocabulary = vocabulary;
        this.zipfExponent = zipfExponent;
        this.dim = dim;
        this.positiveRate = positiveRate;
        this.logitStd = logitStd;
        this.zipf = new Zipf(vocabulary, zipfExponent);
        Random g = new Random(seed);
        this.w = new float[numFields][vocabulary];
        this.v = new float[numFields][vocabulary * dim];
        for (int f = 0; f < numFields; f++) {
            for (int i = 0; i < vocabulary; i++) {
                w[f][i] = (float) g.nextGaussian();
            }
            for (int i = 0; i < vocabulary * dim; i++) {
                v[f][i] = (float) g.nextGaussian();
            }
        }
        this.bias = calibrate(new Random(seed ^ 0x9E3779B97F4A7C15L));
    }

    private PlantedFm(Truth t) {
        this.seed = t.seed();
        this.numFields = t.numFields();
        this.vocabulary = t.vocabulary();
        this.zipfExponent = t.zipfExponent();
        this.dim = t.dim();
        this.positiveRate = t.positiveRate();
        this.logitStd = t.logitStd();
        this.bias = t.bias();
        this.w = t.w();
        this.v = t.v();
        this.zipf = new Zipf(vocabulary, zipfExponent);
        if (w.length != numFields || v.length != numFields || Arrays.stream(w).anyMatch(r -> r.length != vocabulary)
                || Arrays.stream(v).anyMatch(r -> r.length != vocabulary * dim)) {
            throw new IllegalArgumentException("planted truth: weight arrays do not match numFields/vocabulary/dim");
        }
    }

    /** Scales w and v to the target logit spread, then returns the bias that gives the target positive rate. */
    private double calibrate(Random r) {
        int n = CALIBRATION_SAMPLES;
        double[] linear = new double[n];
        double[] pairwise = new double[n];
        int[] ids = new int[numFields];
        for (int s = 0; s < n; s++) {
            drawIds(r, ids);
            linear[s] = linear(ids);
            pairwise[s] = pairwise(ids);
        }
        double targetPart = logitStd / Math.sqrt(2);
        float a = (float) (targetPart / std(linear));
        float c = (float) Math.sqrt(targetPart / std(pairwise)); // the pairwise part is quadratic in v
        for (int f = 0; f < numFields; f++) {
            for (int i = 0; i < w[f].length; i++) {
                w[f][i] *= a;
            }
            for (int i = 0; i < v[f].length; i++) {
                v[f][i] *= c;
            }
        }
        double[] logits = new double[n];
        for (int s = 0; s < n; s++) {
            logits[s] = linear[s] * a + pairwise[s] * c * c;
        }
        return biasFor(logits, positiveRate);
    }

    /** The bias b for which the mean of sigmoid(b + logit) over {@code logits} is {@code rate} (bisection). */
    static double biasFor(double[] logits, double rate) {
        double lo = -20;
        double hi = 20;
        for (int it = 0; it < 60; it++) {
            double mid = (lo + hi) / 2;
            double mean = 0;
            for (double l : logits) {
                mean += sigmoid(mid + l);
            }
            if (mean / logits.length < rate) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    /** One example with id "synthetic" and event time 0; see {@link #next(Random, String, long)}. */
    public Example next(Random rnd) {
        return next(rnd, "synthetic", 0L);
    }

    /** Draws one feature per field, then the label; consumes numFields + 1 doubles of {@code rnd}. */
    public Example next(Random rnd, String id, long eventTimeMillis) {
        int[] ids = new int[numFields];
        drawIds(rnd, ids);
        double p = sigmoid(bias + linear(ids) + pairwise(ids));
        float label = rnd.nextDouble() < p ? 1f : 0f;
        List<Feature> features = new ArrayList<>(numFields);
        for (int f = 0; f < numFields; f++) {
            features.add(new Feature(f, (long) ids[f], 1f));
        }
        return new Example(id, Instant.ofEpochMilli(eventTimeMillis), label, features, List.of(), 1f);
    }

    /**
     * The planted probability for any example: features outside the planted fields/vocabulary
     * have zero weight; values multiply as in a standard FM.
     */
    public double predict(Example example) {
        return sigmoid(logit(example));
    }

    public double logit(Example example) {
        double sum = bias;
        double[] s = new double[dim];
        double[] q = new double[dim];
        for (Feature feature : example.getFeatures()) {
            int f = feature.getField();
            long id = feature.getId();
            if (f < 0 || f >= numFields || id < 0 || id >= vocabulary) {
                continue;
            }
            double x = feature.getValue();
            sum += w[f][(int) id] * x;
            int base = (int) id * dim;
            for (int k = 0; k < dim; k++) {
                double vx = v[f][base + k] * x;
                s[k] += vx;
                q[k] += vx * vx;
            }
        }
        for (int k = 0; k < dim; k++) {
            sum += 0.5 * (s[k] * s[k] - q[k]);
        }
        return sum;
    }

    /** The planted model's AUC on {@code n} fresh draws from {@code new Random(sampleSeed)}. */
    public double estimateAuc(int n, long sampleSeed) {
        Random r = new Random(sampleSeed);
        double[] scores = new double[n];
        float[] labels = new float[n];
        for (int i = 0; i < n; i++) {
            Example e = next(r);
            scores[i] = predict(e);
            labels[i] = e.getLabel();
        }
        return Auc.of(scores, labels);
    }

    private void drawIds(Random r, int[] ids) {
        for (int f = 0; f < numFields; f++) {
            ids[f] = zipf.sample(r);
        }
    }

    private double linear(int[] ids) {
        double sum = 0;
        for (int f = 0; f < numFields; f++) {
            sum += w[f][ids[f]];
        }
        return sum;
    }

    private double pairwise(int[] ids) {
        double sum = 0;
        for (int i = 0; i < numFields; i++) {
            for (int j = i + 1; j < numFields; j++) {
                int bi = ids[i] * dim;
                int bj = ids[j] * dim;
                for (int k = 0; k < dim; k++) {
                    sum += (double) v[i][bi + k] * v[j][bj + k];
                }
            }
        }
        return sum;
    }

    static double std(double[] xs) {
        double mean = 0;
        for (double x : xs) {
            mean += x;
        }
        mean /= xs.length;
        double var = 0;
        for (double x : xs) {
            var += (x - mean) * (x - mean);
        }
        return Math.sqrt(var / xs.length);
    }

    static double sigmoid(double z) {
        return 1 / (1 + Math.exp(-z));
    }

    /** Writes the planted truth (settings, bias, all weights) as JSON; byte-identical for equal arguments. */
    public void writeTruth(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Truth t = new Truth(TRUTH_VERSION, "planted second-order FM: p = sigmoid(bias + sum w[f][id] + sum_{i<j} <v_i, v_j>), "
                + "v[f] is id-major (v[f][id*dim + k])", seed, numFields, vocabulary, zipfExponent, dim,
                positiveRate, logitStd, bias, w, v);
        Files.write(file, JSON.writeValueAsBytes(t));
    }

    public static PlantedFm readTruth(Path file) throws IOException {
        Truth t = JSON.readValue(file.toFile(), Truth.class);
        if (t.version() != TRUTH_VERSION) {
            throw new IOException(file + ": planted truth version " + t.version() + ", expected " + TRUTH_VERSION);
        }
        return new PlantedFm(t);
    }

    /** The JSON form of the truth. */
    record Truth(int version, String model, long seed, int numFields, int vocabulary, double zipfExponent, int dim,
            double positiveRate, double logitStd, double bias, float[][] w, float[][] v) {}

    public long seed() {
        return seed;
    }

    public int numFields() {
        return numFields;
    }

    public int vocabulary() {
        return vocabulary;
    }

    public double zipfExponent() {
        return zipfExponent;
    }

    public int dim() {
        return dim;
    }

    public double bias() {
        return bias;
    }

    /** The planted linear weight of (field, id). */
    public float weight(int field, int id) {
        return w[field][id];
    }

    /** A copy of the planted factor of (field, id). */
    public float[] factor(int field, int id) {
        return Arrays.copyOfRange(v[field], id * dim, (id + 1) * dim);
    }
}
