package io.streamtrain.ps.optimizer;

import static org.apache.flink.configuration.description.TextElement.text;

import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;

/** The optimizers of the deep models' dense parameters, by the names configurations use ({@code streamtrain.ps.dense-optimizer}). */
public enum DenseOptimizerKind implements DescribedEnum {
    ADAM("adam", "Adam (beta1 0.9, beta2 0.999, epsilon 1e-8), bias-corrected."),
    ADAGRAD("adagrad", "Adagrad with streamtrain.ps.adagrad.initial-accumulator."),
    SGD("sgd", "plain stochastic gradient descent.");

    private final String configName;
    private final String description;

    DenseOptimizerKind(String configName, String description) {
        this.configName = configName;
        this.description = description;
    }

    @Override
    public String toString() {
        return configName;
    }

    @Override
    public InlineElement getDescription() {
        return text(description);
    }
}
