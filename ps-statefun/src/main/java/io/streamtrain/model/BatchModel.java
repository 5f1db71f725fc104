package io.streamtrain.model;

import io.streamtrain.model.deep.DenseLayout;
import java.io.Serializable;

/**
 * A model's math over a whole batch: the path trainer, exporter and scorer share. Sparse rows sit
 * in a flat table ({@link #width()} floats each); the dense parameters ({@link #denseLayout()}) in
 * one flat array in layout order, empty for models without them. Not thread-safe: an instance keeps
 * the activations of the batch it works on.
 */
public interface BatchModel extends Serializable, AutoCloseable {
    /** Floats per sparse row: 1 + embedding dimension (1 for lr). */
    int width();

    /** The dense parameter blocks; {@link DenseLayout#NONE} for lr and fm. */
    DenseLayout denseLayout();

    /** Writes the logit of each example of {@code ex} to {@code logits[0 .. ex.size())}. */
    void logits(Examples ex, float[] table, float[] dense, double[] logits);

    /**
     * One training step's gradients of the log loss: writes each example's prediction
     * σ(logit), taken before any update, to {@code predictions}, and adds (p − label) × ∂logit/∂θ,
     * summed over the batch, to {@code tableGrad} (laid out like the table, the bias row included)
     * and {@code denseGrad} (laid out like {@code dense}).
     */
    void gradients(Examples ex, float[] labels, float[] table, float[] dense,
                   double[] predictions, float[] tableGrad, float[] denseGrad);

    /** Frees what the model holds outside the heap (a deep model's PyTorch tower); it may be used again after. */
    @Override
    default void close() {}
}
