package io.streamtrain.ps.optimizer;

import io.streamtrain.ps.PsOptions;
import java.io.Serializable;
import org.apache.flink.configuration.ReadableConfig;

/**
 * The dense parameters' optimizer, read once from {@link PsOptions}. Under the row optimizer
 * {@code count} (the exactly-once tests) the dense parameters count examples too.
 *
 * <p>A dense step's size ({@link #stepScale}): Adam moves each parameter by about its learning rate
 * whatever the gradient, so damping a stale gradient, as the sparse rows do, would not shrink its
 * step. {@code staleAware}: a batch whose chunk took more other batches' updates since its pull than
 * the chunk usually does takes a proportionally smaller step ({@link PsOptions#DENSE_STALENESS_AWARE}).
 */
public record DenseOptimizerConfig(DenseOptimizerKind kind, double learningRate, double initialAccumulator, boolean counting,
                                   boolean staleAware) implements Serializable {

    public static DenseOptimizerConfig from(ReadableConfig conf) {
        return new DenseOptimizerConfig(
                conf.get(PsOptions.DENSE_OPTIMIZER),
                conf.get(PsOptions.DENSE_LEARNING_RATE),
                conf.get(PsOptions.ADAGRAD_INITIAL_ACCUMULATOR),
                conf.get(PsOptions.OPTIMIZER) == OptimizerKind.COUNT,
                conf.get(PsOptions.DENSE_STALENESS_AWARE));
    }

    /**
     * The share of a whole step a batch takes whose chunk took {@code missed} other batches' updates
     * since its pull, where the chunk's recent batches missed {@code usualMissed} on average:
     * min(1, (1 + usual) / (1 + missed)). The staleness-aware rule of Zhang et al. (step ∝ 1 /
     * staleness) with the learning rate set for the job's usual staleness: a batch in the steady
     * state takes its whole step, one that waited through a checkpoint or a backlog a smaller one.
     */
    public float stepScale(long missed, double usualMissed) {
        if (!staleAware || missed <= usualMissed) {
            return 1f;
        }
        return (float) ((1 + usualMissed) / (1 + missed));
    }

    public Optimizer create() {
        if (counting) {
            return new CountEveryWeight();
        }
        return switch (kind) {
            case ADAM -> new Adam(learningRate);
            case ADAGRAD -> new Adagrad(learningRate, 0, initialAccumulator);
            case SGD -> new Sgd(learningRate, 0);
        };
    }
}
