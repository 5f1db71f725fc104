package io.streamtrain.ingest.synthetic;

import io.streamtrain.schema.Click;
import io.streamtrain.schema.Impression;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A realistic impression/click stream for the joiner, drawn from a {@link PlantedClickModel}:
 * <ul>
 *   <li>impressions arrive as a Poisson process (mean gap {@code interval}), users and items by
 *       Zipf popularity, with context {@code device}, {@code position} and {@code hour} (the keys of
 *       the joiner's built-in {@code impressions} mapping);
 *   <li>an impression is clicked with its planted probability; the click comes a truncated
 *       exponential delay (mean {@code meanClickDelay}) within the window, or, for a
 *       {@code beyondWindowRate} share of clicks, up to half a window after it closes;
 *   <li>every record is delivered at its event time plus a uniform delay in [0, {@code disorder}),
 *       and the sink sees them in delivery order: event times run out of order by less than
 *       {@code disorder}, and a click can precede its impression;
 *   <li>a {@code duplicateRate} share of impressions and of clicks is delivered twice (a producer retry).
 * </ul>
 * A joiner whose watermark delay exceeds {@code disorder} sees no late event, so its output is a
 * function of these events alone. Everything is a function of the settings and the seed; memory
 * is bounded by the events in flight (about 1.5 windows of clicks).
 */
public final class SyntheticEvents {
    /** Caps the (probability, label) pairs kept for the planted AUC. */
    private static final int AUC_SAMPLE = 1_000_000;
    private static final long DRAW_SEED_MIX = 0x2545F4914F6CDD1DL;

    /**
     * @param impressions distinct impressions to draw
     * @param dim rank of the planted user-item interaction
     * @param ctr mean planted click probability
     * @param window the joiner's attribution window: clicks are planted inside it, or beyond it on purpose
     */
    public record Settings(long impressions, int users, int items, double zipfExponent, int dim, double ctr,
            Duration interval, Duration window, Duration meanClickDelay, double beyondWindowRate, Duration disorder,
            double duplicateRate, long baseTimeMillis) {
        public static final int DEFAULT_DIM = 4;

        public Settings {
            if (impressions < 0 || users < 1 || items < 1 || dim < 1 || !(zipfExponent > 0) || !(ctr > 0 && ctr < 1)) {
                throw new IllegalArgumentException("need impressions >= 0, users >= 1, items >= 1, dim >= 1, zipf > 0, 0 < ctr < 1");
            }
            if (interval.isNegative() || interval.isZero() || window.isNegative() || window.isZero()
                    || meanClickDelay.isNegative() || meanClickDelay.isZero() || disorder.isNegative()) {
                throw new IllegalArgumentException("interval, window and click delay must be > 0, disorder >= 0");
            }
            if (!(beyondWindowRate >= 0 && beyondWindowRate <= 1) || !(duplicateRate >= 0 && duplicateRate <= 1)) {
                throw new IllegalArgumentException("beyond-window and duplicate rates must be in [0, 1]");
            }
        }

        /** 10,000 users, 1,000 items, Zipf 1.1, dim 4, CTR 5%, an impression every 10 ms, a 15 min window,
         *  clicks 1 min after on average, 2% beyond the window, 5 s disorder, 1% duplicates. */
        public static Settings defaults(long impressions, long baseTimeMillis) {
            return new Settings(impressions, 10_000, 1_000, 1.1, DEFAULT_DIM, 0.05, Duration.ofMillis(10), Duration.ofMinutes(15),
                    Duration.ofMinutes(1), 0.02, Duration.ofSeconds(5), 0.01, baseTimeMillis);
        }

        public Settings withPopulation(int u, int i) {
            return new Settings(impressions, u, i, zipfExponent, dim, ctr, interval, window, meanClickDelay,
                    beyondWindowRate, disorder, duplicateRate, baseTimeMillis);
        }

        public Settings withCtr(double c) {
            return new Settings(impressions, users, items, zipfExponent, dim, c, interval, window, meanClickDelay,
                    beyondWindowRate, disorder, duplicateRate, baseTimeMillis);
        }

        public Settings withTiming(Duration gap, Duration w, Duration meanDelay, Duration d) {
            return new Settings(impressions, users, items, zipfExponent, dim, ctr, gap, w, meanDelay,
                    beyondWindowRate, d, duplicateRate, baseTimeMillis);
        }

        public Settings withRates(double beyondWindow, double duplicates) {
            return new Settings(impressions, users, items, zipfExponent, dim, ctr, interval, window, meanClickDelay,
                    beyondWindow, disorder, duplicates, baseTimeMillis);
        }
    }

    /** Receives the events in delivery order. */
    public interface Sink {
        void impression(Impression impression);

        void click(Click click);
    }

    /**
     * What was generated. {@code clicks} and {@code impressions} count distinct events,
     * duplicates are the extra deliveries; {@code plantedAuc} is the planted probability's AUC
     * against "clicked within the window" (the joiner's label) over the first million impressions.
     */
    public record Stats(long impressions, long duplicateImpressions, long clicks, long duplicateClicks,
            long clicksBeyondWindow, double plantedAuc) {
        /** Share of impressions clicked within the window. */
        public double ctr() {
            return impressions == 0 ? 0 : (clicks - clicksBeyondWindow) / (double) impressions;
        }
    }

    private final Settings settings;
    private final long seed;
    private final PlantedClickModel model;

    public SyntheticEvents(Settings settings, long seed) {
        this.settings = settings;
        this.seed = seed;
        this.model = new PlantedClickModel(seed, settings.users(), settings.items(), settings.zipfExponent(),
                settings.dim(), settings.ctr());
    }

    public PlantedClickModel model() {
        return model;
    }

    public Settings settings() {
        return settings;
    }

    /** Writes the planted model and these settings as JSON. */
    public void writeTruth(Path file) throws IOException {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("impressions", settings.impressions());
        s.put("users", settings.users());
        s.put("items", settings.items());
        s.put("zipf_exponent", settings.zipfExponent());
        s.put("dim", settings.dim());
        s.put("interval_ms", settings.interval().toNanos() / 1e6);
        s.put("window_ms", settings.window().toMillis());
        s.put("mean_click_delay_ms", settings.meanClickDelay().toMillis());
        s.put("beyond_window_rate", settings.beyondWindowRate());
        s.put("disorder_ms", settings.disorder().toMillis());
        s.put("duplicate_rate", settings.duplicateRate());
        s.put("base_time_ms", settings.baseTimeMillis());
        model.writeTruth(file, s);
    }

    /** The id of impression {@code i} (0-based) of this seed. */
    public String impressionId(long i) {
        return "imp-" + seed + "-" + i;
    }

    /** Draws every event and hands it to the sink in delivery order. */
    public Stats generate(Sink sink) {
        Random r = new Random(seed ^ DRAW_SEED_MIX);
        PriorityQueue<Delivery> inFlight = new PriorityQueue<>();
        long windowMs = settings.window().toMillis();
        double gapMs = settings.interval().toNanos() / 1e6;
        double meanDelayMs = settings.meanClickDelay().toNanos() / 1e6;
        double truncation = 1 - Math.exp(-windowMs / meanDelayMs);
        long disorderMs = settings.disorder().toMillis();
        int sample = (int) Math.min(settings.impressions(), AUC_SAMPLE);
        double[] probabilities = new double[sample];
        float[] labels = new float[sample];
        long[] counts = new long[5]; // impressions, duplicate impressions, clicks, duplicate clicks, beyond window
        long[] sequence = {0};
        double time = settings.baseTimeMillis();
        for (long i = 0; i < settings.impressions(); i++) {
            time += -gapMs * Math.log(1 - r.nextDouble());
            long t = (long) time;
            deliverUpTo(t, inFlight, sink);
            PlantedClickModel.Draw d = model.draw(r);
            int hour = (int) Math.floorMod(t / 3_600_000L, 24L);
            String id = impressionId(i);
            Impression impression = new Impression(id, PlantedClickModel.userId(d.user()), PlantedClickModel.itemId(d.item()),
                    Instant.ofEpochMilli(t), Map.of("device", PlantedClickModel.DEVICES[d.device()],
                            "position", String.valueOf(d.position()), "hour", String.valueOf(hour)));
            counts[0]++;
            schedule(inFlight, t, disorderMs, r, sequence, impression);
            if (r.nextDouble() < settings.duplicateRate()) {
                counts[1]++;
                schedule(inFlight, t, disorderMs, r, sequence, impression);
            }
            double p = model.probability(d, hour);
            boolean clicked = r.nextDouble() < p;
            boolean inWindow = false;
            if (clicked) {
                long delay;
                if (r.nextDouble() < settings.beyondWindowRate()) {
                    delay = windowMs + 1 + (long) (r.nextDouble() * windowMs / 2);
                    counts[4]++;
                } else {
                    delay = Math.min(windowMs, (long) (-meanDelayMs * Math.log(1 - r.nextDouble() * truncation)));
                    inWindow = true;
                }
                Click click = new Click(id, Instant.ofEpochMilli(t + delay));
                counts[2]++;
                schedule(inFlight, t + delay, disorderMs, r, sequence, click);
                if (r.nextDouble() < settings.duplicateRate()) {
                    counts[3]++;
                    schedule(inFlight, t + delay, disorderMs, r, sequence, click);
                }
            }
            if (i < sample) {
                probabilities[(int) i] = p;
                labels[(int) i] = inWindow ? 1f : 0f;
            }
        }
        deliverUpTo(Long.MAX_VALUE, inFlight, sink);
        double auc = sample == 0 ? Double.NaN : Auc.of(Arrays.copyOf(probabilities, sample), labels);
        return new Stats(counts[0], counts[1], counts[2], counts[3], counts[4], auc);
    }

    private static void schedule(PriorityQueue<Delivery> inFlight, long eventTime, long disorderMs, Random r, long[] sequence,
            Object event) {
        long arrival = eventTime + (disorderMs == 0 ? 0 : (long) (r.nextDouble() * disorderMs));
        inFlight.add(new Delivery(arrival, sequence[0]++, event));
    }

    /** Hands over every delivery due by {@code time}: nothing drawn later can be due before it. */
    private static void deliverUpTo(long time, PriorityQueue<Delivery> inFlight, Sink sink) {
        while (!inFlight.isEmpty() && inFlight.peek().arrival <= time) {
            Object e = inFlight.poll().event;
            if (e instanceof Impression i) {
                sink.impression(i);
            } else {
                sink.click((Click) e);
            }
        }
    }

    private record Delivery(long arrival, long sequence, Object event) implements Comparable<Delivery> {
        @Override
        public int compareTo(Delivery o) {
            int c = Long.compare(arrival, o.arrival);
            return c != 0 ? c : Long.compare(sequence, o.sequence);
        }
    }
}
