package io.streamtrain.ps.row;

import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DenseLayout;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.DenseOptimizerConfig;
import io.streamtrain.ps.optimizer.Optimizer;
import java.io.Serializable;
import org.apache.flink.configuration.ReadableConfig;

/**
 * What the PS needs to keep a deep model's dense parameters as chunk rows ({@link DenseChunks}):
 * their layout (for each chunk's first values), the seed and the dense optimizer.
 * {@link #NONE} for lr and fm, whose pulls never name a dense chunk.
 */
public record DenseParameters(DenseLayout layout, long seed, DenseOptimizerConfig optimizer) implements Serializable {
    public static final DenseParameters NONE = new DenseParameters(DenseLayout.NONE, 0, null);

    /** The dense parameters of {@code shape} under {@code conf} ({@link PsOptions}): {@link #NONE} for lr and fm. */
    public static DenseParameters from(ReadableConfig conf, ModelShape shape) {
        return shape.kind().isDeep()
                ? new DenseParameters(shape.denseLayout(), conf.get(PsOptions.INIT_SEED), DenseOptimizerConfig.from(conf))
                : NONE;
    }

    /**
     * The first values of chunk {@code chunk}: the layout's initial values, or zeros under the
     * count oracle, whose every parameter must end equal to the examples trained.
     */
    public float[] initialChunk(int chunk) {
        float[] values = new float[DenseChunks.WIDTH];
        if (!optimizer.counting()) {
            layout.initialValues(seed, chunk * DenseChunks.WIDTH, values);
        }
        return values;
    }

    public EmbeddingRow newRow(int chunk, Optimizer denseOptimizer) {
        return new EmbeddingRow(initialChunk(chunk), denseOptimizer.initialSlots(DenseChunks.WIDTH));
    }
}
