package io.streamtrain.ps.optimizer;

import java.io.Serializable;

/**
 * Applies one mini-batch's summed gradient to one row, in place. {@code grad[off .. off+width)} is
 * the gradient of the loss with respect to the row's weights; {@code occurrences} is how many of
 * the batch's examples contained the row's feature.
 */
public interface Optimizer extends Serializable {
    float[] initialSlots(int width);

    void apply(float[] weights, float[] slots, float[] grad, int off, int occurrences);

    /**
     * {@link #apply} with the step scaled by {@code stepScale} in (0, 1], the optimizer's statistics
     * still taking the whole gradient: the staleness-aware step of the dense parameters, whose Adam
     * would undo a scaled gradient (its step does not depend on the gradient's scale). The dense
     * parameters' optimizers implement it; the others are never asked.
     */
    default void apply(float[] weights, float[] slots, float[] grad, int off, int occurrences, float stepScale) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no scaled steps");
    }
}
