package io.streamtrain.model;

import io.streamtrain.model.deep.DeepModel;
import io.streamtrain.model.deep.DenseLayout;
import java.io.Serializable;
import java.util.List;

/**
 * Everything that fixes a model's math: its kind, the embedding dimension and, for the deep kinds,
 * the fields that feed the dense tower (field ids {@code 0 .. fields-1}, one input slot of
 * {@code dim} floats each, in field order; a field an example lacks is a zero vector), the MLP's
 * hidden layer widths and DCN's cross layers. Trainer, exporter and scorer build the model from it,
 * so they all compute the same thing.
 */
public record ModelShape(ModelKind kind, int dim, int fields, List<Integer> hidden, int crossLayers) implements Serializable {
    public ModelShape {
        hidden = List.copyOf(hidden);
        if (kind != ModelKind.LR && dim < 1) {
            throw new IllegalArgumentException(kind + " needs dim >= 1, got " + dim);
        }
        if (kind.isDeep()) {
            if (fields < 1) {
                throw new IllegalArgumentException(kind + " needs the number of input fields (>= 1), got " + fields);
            }
            for (int h : hidden) {
                if (h < 1) {
                    throw new IllegalArgumentException(kind + ": hidden layer widths must be >= 1, got " + hidden);
                }
            }
            if (kind != ModelKind.DCN && crossLayers != 0) {
                throw new IllegalArgumentException("cross layers belong to dcn, not " + kind + " (got " + crossLayers + ")");
            }
            if (kind == ModelKind.DCN && crossLayers < 1) {
                throw new IllegalArgumentException("dcn needs at least one cross layer, got " + crossLayers);
            }
        }
    }

    /** The shape of a model without a dense tower. */
    public static ModelShape sparse(ModelKind kind, int dim) {
        return new ModelShape(kind, dim, 0, List.of(), 0);
    }

    /** Floats per sparse row: the linear weight, then the embedding (none for lr). */
    public int rowWidth() {
        return kind.rowWidth(dim);
    }

    /** Width of the dense tower's input: one embedding per field. */
    public int inputWidth() {
        return fields * dim;
    }

    public DenseLayout denseLayout() {
        return kind.isDeep() ? DenseLayout.of(this) : DenseLayout.NONE;
    }

    /** The model's batch math. */
    public BatchModel batchModel() {
        return kind.isDeep() ? new DeepModel(this) : new PerExampleModel(kind.create(dim));
    }
}
