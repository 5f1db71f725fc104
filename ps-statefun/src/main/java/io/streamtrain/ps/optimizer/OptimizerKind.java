package io.streamtrain.ps.optimizer;

import static org.apache.flink.configuration.description.TextElement.text;

import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;

/** The row optimizers, by the names configurations use ({@code streamtrain.ps.optimizer}). */
public enum OptimizerKind implements DescribedEnum {
    SGD("sgd", "plain stochastic gradient descent."),
    ADAGRAD("adagrad", "Adagrad: one squared-gradient accumulator per weight."),
    ROWWISE_ADAGRAD("rowwise-adagrad", "Adagrad with one accumulator for the embedding and one for the linear weight: rows a third smaller."),
    FTRL("ftrl", "FTRL-Proximal on the linear weight, Adagrad on the embedding."),
    COUNT("count", "adds each occurrence to weight 0: the exactly-once oracle of the tests.");

    private final String configName;
    private final String description;

    OptimizerKind(String configName, String description) {
        this.configName = configName;
        this.description = description;
    }

    /** The name a configuration uses; Flink's enum options match it case-insensitively. */
    @Override
    public String toString() {
        return configName;
    }

    @Override
    public InlineElement getDescription() {
        return text(description);
    }
}
