package io.streamtrain.model;

import java.util.Locale;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;
import org.apache.flink.configuration.description.TextElement;

/** The model families the trainer knows, by the names configurations and model cards use ({@code lr}, {@code fm}). */
public enum ModelKind implements DescribedEnum {
    LR("logistic regression: one weight per feature."),
    FM("second-order factorization machine: a weight and an embedding of streamtrain.ps.dim per feature.");

    private final String description;

    ModelKind(String description) {
        this.description = description;
    }

    /** A model card's or model.json's model name. */
    public static ModelKind parse(String name) {
        for (ModelKind kind : values()) {
            if (kind.name().equalsIgnoreCase(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown model '" + name + "': expected lr or fm");
    }

    /** The name a configuration uses; Flink's enum options match it case-insensitively. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public InlineElement getDescription() {
        return TextElement.text(description);
    }

    /** The model; {@code dim} is the embedding dimension (ignored by LR, whose rows are width 1). */
    public Model create(int dim) {
        return this == LR ? new LogisticRegression() : new FactorizationMachine(dim);
    }

    /** Row width the PS must store for this model. */
    public int rowWidth(int dim) {
        return this == LR ? 1 : 1 + dim;
    }
}
