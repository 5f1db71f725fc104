package io.streamtrain.ps.optimizer;

import io.streamtrain.ps.PsOptions;
import java.io.Serializable;
import org.apache.flink.configuration.ReadableConfig;

/** The optimizer hyper-parameters, read once from {@link PsOptions}. */
public record OptimizerConfig(
        OptimizerKind kind, double learningRate, double l2, double l1, double beta, double initialAccumulator)
        implements Serializable {

    public static OptimizerConfig from(ReadableConfig conf) {
        return new OptimizerConfig(
                conf.get(PsOptions.OPTIMIZER),
                conf.get(PsOptions.LEARNING_RATE),
                conf.get(PsOptions.L2),
                conf.get(PsOptions.L1),
                conf.get(PsOptions.FTRL_BETA),
                conf.get(PsOptions.ADAGRAD_INITIAL_ACCUMULATOR));
    }

    public Optimizer create() {
        return switch (kind) {
            case SGD -> new Sgd(learningRate, l2);
            case ADAGRAD -> new Adagrad(learningRate, l2, initialAccumulator);
            case ROWWISE_ADAGRAD -> new RowwiseAdagrad(learningRate, l2, initialAccumulator);
            case FTRL -> new Ftrl(learningRate, beta, l1, l2, new Adagrad(learningRate, l2, initialAccumulator));
            case COUNT -> new CountOptimizer();
        };
    }
}
