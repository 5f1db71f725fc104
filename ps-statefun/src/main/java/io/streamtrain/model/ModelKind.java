package io.streamtrain.model;

import java.util.Locale;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;
import org.apache.flink.configuration.description.TextElement;

/** The model families the trainer knows, by the names configurations and model cards use ({@code lr}, {@code fm}, {@code deepfm}, {@code wdl}, {@code dcn}). */
public enum ModelKind implements DescribedEnum {
    LR("logistic regression: one weight per feature."),
    FM("second-order factorization machine: a weight and an embedding of streamtrain.ps.dim per feature."),
    DEEPFM("DeepFM: the factorization machine plus an MLP over the fields' embeddings."),
    WDL("Wide & Deep: a weight per feature (wide) plus an MLP over the fields' embeddings (deep)."),
    DCN("DCN-v2: a weight per feature plus cross layers and an MLP side by side over the fields' embeddings.");

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
        throw new IllegalArgumentException("unknown model '" + name + "': expected lr, fm, deepfm, wdl or dcn");
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

    /** Whether the model has a dense tower (dense parameters beside the sparse rows): see {@link ModelShape}. */
    public boolean isDeep() {
        return this == DEEPFM || this == WDL || this == DCN;
    }

    /**
     * The per-example model of lr or fm; {@code dim} is the embedding dimension (ignored by LR,
     * whose rows are width 1). The deep kinds need a {@link ModelShape}.
     */
    public Model create(int dim) {
        return switch (this) {
            case LR -> new LogisticRegression();
            case FM -> new FactorizationMachine(dim);
            default -> throw new IllegalArgumentException(this + " is a batch model: build it from a ModelShape");
        };
    }

    /** Row width the PS must store for this model's sparse rows. */
    public int rowWidth(int dim) {
        return this == LR ? 1 : 1 + dim;
    }
}
