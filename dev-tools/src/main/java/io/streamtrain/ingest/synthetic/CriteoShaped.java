package io.streamtrain.ingest.synthetic;

import io.streamtrain.ingest.format.CriteoParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.io.Reader;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Synthetic lines in Criteo's TSV layout, for benchmarks and learning tests on data shaped like a
 * real click log: 13 integer columns (log-normal counts, some often missing) and 26 categorical
 * columns (Zipf-distributed values over vocabularies of 3 to 100,000, some often missing), with
 * missing rates and vocabularies modelled on the Criteo display-ads log. The label comes from a
 * planted factorization machine (dim 4) over the features {@link CriteoParser} makes of the line
 * (default hash bits), so ingest featurises them exactly as it would a real Criteo file. Its weights
 * are a function of the seed and the feature; they are scaled, like {@link PlantedFm}'s, so the
 * linear and pairwise parts each carry half of a logit spread of 1.35, and the bias is solved for a
 * click rate of 0.2.
 */
public final class CriteoShaped {
    public static final double CLICK_RATE = 0.2;
    private static final double LOGIT_STD = 1.35;
    private static final double ZIPF_EXPONENT = 1.1;
    private static final int DIM = 4;
    private static final int CALIBRATION_SAMPLES = 20_000;
    private static final double[] INTEGER_MISSING = {0.45, 0, 0.21, 0.22, 0.03, 0.22, 0.04, 0, 0.04, 0.45, 0.04, 0.77, 0.22};
    private static final double[] INTEGER_LOG_MEAN = {0.7, 3, 1.5, 1.7, 8, 4.5, 1.5, 2.5, 4, 0.3, 1, 0.5, 2};
    private static final double INTEGER_LOG_STD = 1.5;
    private static final int[] CATEGORY_VOCABULARY = {1400, 550, 100_000, 50_000, 300, 20, 12_000, 600, 3, 40_000, 5_000,
        100_000, 3_000, 27, 11_000, 100_000, 10, 4_500, 2_000, 4, 100_000, 17, 15, 60_000, 90, 45_000};
    private static final double[] CATEGORY_MISSING = {0, 0, 0.03, 0.03, 0, 0.12, 0, 0, 0, 0.03, 0, 0.03, 0, 0, 0, 0.03, 0, 0,
        0.44, 0.44, 0.03, 0.76, 0, 0.03, 0.44, 0.44};

    private final long seed;
    private final Map<Long, float[]> planted = new HashMap<>();
    private final Zipf[] categories = new Zipf[CriteoParser.CATEGORICAL_COLUMNS];
    private final CriteoParser parser = new CriteoParser(ParseOptions.defaults("synthetic-criteo"));
    private final double linearScale;
    private final double pairwiseScale;
    private final double bias;

    public CriteoShaped(long seed) {
        this.seed = seed;
        for (int j = 0; j < categories.length; j++) {
            categories[j] = new Zipf(CATEGORY_VOCABULARY[j], ZIPF_EXPONENT);
        }
        Random r = new Random(seed ^ 0x9E3779B97F4A7C15L);
        double[] linear = new double[CALIBRATION_SAMPLES];
        double[] pairwise = new double[CALIBRATION_SAMPLES];
        for (int s = 0; s < CALIBRATION_SAMPLES; s++) {
            Example e = parse("0\t" + columns(r));
            linear[s] = linear(e);
            pairwise[s] = pairwise(e);
        }
        double part = LOGIT_STD / Math.sqrt(2);
        linearScale = part / PlantedFm.std(linear);
        pairwiseScale = part / PlantedFm.std(pairwise);
        double[] logits = new double[CALIBRATION_SAMPLES];
        for (int s = 0; s < CALIBRATION_SAMPLES; s++) {
            logits[s] = linearScale * linear[s] + pairwiseScale * pairwise[s];
        }
        bias = PlantedFm.biasFor(logits, CLICK_RATE);
    }

    /** One labelled line (label, then the 39 columns, tab-separated); consumes {@code r} only. */
    public String nextLine(Random r) {
        String columns = columns(r);
        double p = predict(parse("0\t" + columns));
        return (r.nextDouble() < p ? "1\t" : "0\t") + columns;
    }

    /** The planted click probability of an example featurised like a Criteo line (default hash bits). */
    public double predict(Example e) {
        return PlantedFm.sigmoid(bias + linearScale * linear(e) + pairwiseScale * pairwise(e));
    }

    /** {@code n} lines drawn with {@code new Random(dataSeed)}, one per {@link java.io.BufferedReader#readLine}. */
    public Reader lines(long n, long dataSeed) {
        Random r = new Random(dataSeed);
        return new Reader() {
            private long written;
            private String pending = "";
            private int at;

            @Override
            public int read(char[] buf, int off, int len) {
                if (at == pending.length()) {
                    if (written == n) {
                        return -1;
                    }
                    written++;
                    pending = nextLine(r) + "\n";
                    at = 0;
                }
                int k = Math.min(len, pending.length() - at);
                pending.getChars(at, at + k, buf, off);
                at += k;
                return k;
            }

            @Override
            public void close() {}
        };
    }

    private String columns(Random r) {
        StringBuilder b = new StringBuilder(256);
        for (int i = 0; i < CriteoParser.INTEGER_COLUMNS; i++) {
            if (i > 0) {
                b.append('\t');
            }
            double u = r.nextDouble();
            double g = r.nextGaussian();
            if (u >= INTEGER_MISSING[i]) {
                b.append((long) Math.floor(Math.exp(INTEGER_LOG_MEAN[i] + INTEGER_LOG_STD * g)));
            }
        }
        for (int j = 0; j < CriteoParser.CATEGORICAL_COLUMNS; j++) {
            b.append('\t');
            double u = r.nextDouble();
            int rank = categories[j].sample(r);
            if (u >= CATEGORY_MISSING[j]) {
                // 8 hex digits, like Criteo's hashed values; distinct per column and rank.
                String hex = Integer.toHexString((int) mix(seed ^ ((long) j << 40) ^ rank));
                b.append("00000000", hex.length(), 8).append(hex);
            }
        }
        return b.toString();
    }

    private Example parse(String line) {
        ParseResult result = parser.parse(line, 0);
        if (result instanceof ParseResult.Ok ok) {
            return ok.example();
        }
        throw new IllegalStateException("generated a line the Criteo parser rejects: " + result);
    }

    private double linear(Example e) {
        double sum = 0;
        for (Feature f : e.getFeatures()) {
            sum += weights(f)[DIM] * f.getValue();
        }
        return sum;
    }

    private double pairwise(Example e) {
        double sum = 0;
        for (int k = 0; k < DIM; k++) {
            double s = 0;
            double q = 0;
            for (Feature f : e.getFeatures()) {
                double vx = weights(f)[k] * f.getValue();
                s += vx;
                q += vx * vx;
            }
            sum += 0.5 * (s * s - q);
        }
        return sum;
    }

    /**
     * A feature's planted embedding and (last) linear weight, standard normal and a function of the
     * seed and the feature; kept, as the vocabularies bound them (under a million features).
     */
    private float[] weights(Feature f) {
        return planted.computeIfAbsent(FeatureKey.of(f.getField(), f.getId()), key -> {
            SplittableRandom r = new SplittableRandom(mix(seed ^ mix(key)));
            float[] w = new float[DIM + 1];
            for (int k = 0; k <= DIM; k++) {
                double u = 1.0 - r.nextDouble();
                w[k] = (float) (Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble()));
            }
            return w;
        });
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
