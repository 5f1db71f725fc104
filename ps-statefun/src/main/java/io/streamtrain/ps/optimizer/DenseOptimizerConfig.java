package io.streamtrain.ps.optimizer;

import io.streamtrain.ps.PsOptions;
import java.io.Serializable;
import org.apache.flink.configuration.ReadableConfig;

/**
 * The dense parameters' optimizer, read once from {@link PsOptions}. Under the row optimizer
 * {@code count} (the exactly-once tests) the dense parameters count examples too.
 */
public record DenseOptimizerConfig(DenseOptimizerKind kind, double learningRate, double initialAccumulator, boolean counting)
        implements Serializable {

    public static DenseOptimizerConfig from(ReadableConfig conf) {
        return new DenseOptimizerConfig(
                conf.get(PsOptions.DENSE_OPTIMIZER),
                conf.get(PsOptions.DENSE_LEARNING_RATE),
                conf.get(PsOptions.ADAGRAD_INITIAL_ACCUMULATOR),
                conf.get(PsOptions.OPTIMIZER) == OptimizerKind.COUNT);
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
