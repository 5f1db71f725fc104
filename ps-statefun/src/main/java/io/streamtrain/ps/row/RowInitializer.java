package io.streamtrain.ps.row;

import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.Optimizer;
import java.io.Serializable;
import java.util.SplittableRandom;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Lazy, deterministic row initialisation seeded by the row key: a row that is first touched after a
 * restore, on another subtask, or in a replay gets the same starting values.
 */
public final class RowInitializer implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int width;
    private final double stddev;
    private final long seed;

    public RowInitializer(int width, double stddev, long seed) {
        this.width = width;
        this.stddev = stddev;
        this.seed = seed;
    }

    /** The initialiser the PS of a {@code kind} model uses under {@code conf} ({@link PsOptions}). */
    public static RowInitializer from(ReadableConfig conf, ModelKind kind) {
        return new RowInitializer(kind.rowWidth(conf.get(PsOptions.DIM)), conf.get(PsOptions.INIT_STDDEV), conf.get(PsOptions.INIT_SEED));
    }

    /** Initial weights: linear weight 0, embedding entries N(0, stddev²). */
    public float[] initialWeights(long rowKey) {
        float[] w = new float[width];
        if (width > 1) {
            SplittableRandom random = new SplittableRandom(KeyGroups.mix(rowKey ^ seed));
            for (int i = 1; i < width; i++) {
                w[i] = (float) (gaussian(random) * stddev);
            }
        }
        return w;
    }

    public EmbeddingRow newRow(long rowKey, Optimizer optimizer) {
        return new EmbeddingRow(initialWeights(rowKey), optimizer.initialSlots(width));
    }

    public int width() {
        return width;
    }

    private static double gaussian(SplittableRandom r) {
        // Box-Muller; SplittableRandom has no nextGaussian on Java 17.
        double u = 1.0 - r.nextDouble();
        double v = r.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
