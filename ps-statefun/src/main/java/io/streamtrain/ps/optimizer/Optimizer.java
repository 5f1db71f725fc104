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
}
