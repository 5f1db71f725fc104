package io.streamtrain.model;

/** The model families the trainer knows. */
public enum ModelKind {
    LR,
    FM;

    public static ModelKind parse(String name) {
        for (ModelKind kind : values()) {
            if (kind.name().equalsIgnoreCase(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown model '" + name + "': expected lr or fm");
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
