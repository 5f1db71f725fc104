package io.streamtrain.ps.optimizer;

import io.streamtrain.ps.PsOptions;
import java.io.Serializable;
import org.apache.flink.configuration.ReadableConfig;

/** The optimizer hyper-parameters, read once from {@link PsOptions}. */
public record OptimizerConfig(
        String name, double learningRate, double l2, double l1, double beta, double initialAccumulator)
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
        switch (name) {
            case "sgd":
                return new Sgd(learningRate, l2);
            case "adagrad":
                return new Adagrad(learningRate, l2, initialAccumulator);
            case "rowwise-adagrad":
                return new RowwiseAdagrad(learningRate, l2, initialAccumulator);
            case "ftrl":
                return new Ftrl(learningRate, beta, l1, l2, new Adagrad(learningRate, l2, initialAccumulator));
            case "count":
                return new CountOptimizer();
            default:
                throw new IllegalArgumentException(
                        "unknown optimizer '" + name + "': expected one of sgd, adagrad, rowwise-adagrad, ftrl, count");
        }
    }
}
