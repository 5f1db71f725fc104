package io.streamtrain.ingest.synthetic;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.schema.Impression;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

/**
 * The planted truth behind {@code ingest --synthetic-events}: the probability that an impression
 * is clicked, a function of the raw values the joiner's built-in {@code impressions} mapping turns
 * into features, so a model trained on the joined stream can learn it and beat random.
 *
 * <pre>
 * logit = bias + user_bias[u] + item_bias[i] + &lt;user_factor[u], item_factor[i]&gt;
 *       + position_bias[position] + device_bias[device] + hour_bias[hour of day]
 * </pre>
 * User and item biases are N(0, 0.5²), user factors N(0, 1/dim) and item factors N(0, 1) (the dot
 * product has unit variance), position_bias[p] = -0.3 p (lower slots get fewer clicks), device
 * biases N(0, 0.2²), hour_bias a daily sine of amplitude 0.3; the bias is solved on a calibration
 * sample so the mean click probability is {@code ctr}. Everything is a function of the constructor arguments.
 */
public final class PlantedClickModel {
    public static final String[] DEVICES = {"mobile", "desktop", "tablet"};
    /** How often each device is drawn (cumulative). */
    private static final double[] DEVICE_CDF = {0.6, 0.9, 1.0};
    public static final int POSITIONS = 5;
    private static final int CALIBRATION_SAMPLES = 20_000;
    private static final int TRUTH_VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final long seed;
    private final int dim;
    private final double ctr;
    private final Zipf users;
    private final Zipf items;
    private final double[] userBias;
    private final double[] itemBias;
    private final double[][] userFactor;
    private final double[][] itemFactor;
    private final double[] positionBias = new double[POSITIONS];
    private final double[] deviceBias = new double[DEVICES.length];
    private final double[] hourBias = new double[24];
    private final double bias;

    public PlantedClickModel(long seed, int users, int items, double zipfExponent, int dim, double ctr) {
        if (users < 1 || items < 1 || dim < 1 || !(zipfExponent > 0) || !(ctr > 0 && ctr < 1)) {
            throw new IllegalArgumentException("need users >= 1, items >= 1, dim >= 1, zipf exponent > 0, 0 < ctr < 1");
        }
        this.seed = seed;
        this.dim = dim;
        this.ctr = ctr;
        this.users = new Zipf(users, zipfExponent);
        this.items = new Zipf(items, zipfExponent);
        Random g = new Random(seed);
        userBias = gaussians(g, users, 0.5);
        itemBias = gaussians(g, items, 0.5);
        userFactor = new double[users][];
        for (int u = 0; u < users; u++) {
            userFactor[u] = gaussians(g, dim, 1 / Math.sqrt(dim));
        }
        itemFactor = new double[items][];
        for (int i = 0; i < items; i++) {
            itemFactor[i] = gaussians(g, dim, 1.0);
        }
        for (int p = 0; p < POSITIONS; p++) {
            positionBias[p] = -0.3 * p;
        }
        for (int d = 0; d < DEVICES.length; d++) {
            deviceBias[d] = 0.2 * g.nextGaussian();
        }
        for (int h = 0; h < 24; h++) {
            hourBias[h] = 0.3 * Math.sin(2 * Math.PI * h / 24);
        }
        this.bias = calibrate(new Random(seed ^ 0x9E3779B97F4A7C15L));
    }

    /** An impression's raw values, as indices. */
    public record Draw(int user, int item, int device, int position) {}

    /** Draws who sees what where: user and item by Zipf popularity, device and position by their shares. */
    public Draw draw(Random r) {
        int user = users.sample(r);
        int item = items.sample(r);
        double u = r.nextDouble();
        int device = 0;
        while (u >= DEVICE_CDF[device]) {
            device++;
        }
        return new Draw(user, item, device, r.nextInt(POSITIONS));
    }

    /** The planted click probability of an impression shown at {@code hour} (0..23, UTC). */
    public double probability(Draw d, int hour) {
        return PlantedFm.sigmoid(bias + logitWithoutBias(d, hour));
    }

    /**
     * The planted click probability of an impression as the events carry it (user {@code u<index>},
     * item {@code i<index>}, context device, position and hour).
     */
    public double probability(Impression impression) {
        Map<String, String> c = impression.getContext();
        int device = Arrays.asList(DEVICES).indexOf(c.get("device"));
        if (device < 0) {
            throw new IllegalArgumentException("unknown device " + c.get("device"));
        }
        Draw d = new Draw(Integer.parseInt(impression.getUserId().substring(1)), Integer.parseInt(impression.getItemId().substring(1)),
                device, Integer.parseInt(c.get("position")));
        return probability(d, Integer.parseInt(c.get("hour")));
    }

    private double logitWithoutBias(Draw d, int hour) {
        double dot = 0;
        for (int k = 0; k < dim; k++) {
            dot += userFactor[d.user()][k] * itemFactor[d.item()][k];
        }
        return userBias[d.user()] + itemBias[d.item()] + dot + positionBias[d.position()] + deviceBias[d.device()]
                + hourBias[hour];
    }

    private double calibrate(Random r) {
        double[] logits = new double[CALIBRATION_SAMPLES];
        for (int s = 0; s < logits.length; s++) {
            logits[s] = logitWithoutBias(draw(r), r.nextInt(24));
        }
        double lo = -30;
        double hi = 30;
        for (int it = 0; it < 60; it++) {
            double mid = (lo + hi) / 2;
            double mean = 0;
            for (double l : logits) {
                mean += PlantedFm.sigmoid(mid + l);
            }
            if (mean / logits.length < ctr) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    /** The raw user id the events carry. */
    public static String userId(int user) {
        return "u" + user;
    }

    /** The raw item id the events carry. */
    public static String itemId(int item) {
        return "i" + item;
    }

    /** Writes every parameter as JSON; byte-identical for equal arguments. */
    public void writeTruth(Path file, Object settings) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Truth t = new Truth(TRUTH_VERSION, "planted click model: p = sigmoid(bias + user_bias[u] + item_bias[i]"
                + " + <user_factor[u], item_factor[i]> + position_bias[position] + device_bias[device] + hour_bias[hour]);"
                + " user id 'u<index>', item id 'i<index>', context device/position/hour as strings", seed, settings, ctr,
                bias, DEVICES, userBias, itemBias, userFactor, itemFactor, positionBias, deviceBias, hourBias);
        Files.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(t));
    }

    /** The JSON form of the truth. */
    record Truth(int version, String model, long seed, Object settings, double ctr, double bias, String[] devices,
            double[] userBias, double[] itemBias, double[][] userFactor, double[][] itemFactor, double[] positionBias,
            double[] deviceBias, double[] hourBias) {}

    private static double[] gaussians(Random g, int n, double std) {
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = std * g.nextGaussian();
        }
        return x;
    }

    public double bias() {
        return bias;
    }
}
