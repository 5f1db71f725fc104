package io.streamtrain.model.deep;

import java.io.Serializable;

/**
 * One named block of dense parameters, stored row-major at {@code offset} of the flat parameter
 * array: a weight is {@code rows} = fan-in × {@code cols} = fan-out (y = x·W, the layout the
 * kernels stream through), a bias is 1 × fan-out.
 */
public record DenseBlock(String name, int rows, int cols, int offset, boolean bias) implements Serializable {
    public int size() {
        return rows * cols;
    }

    /**
     * Initial value of entry {@code i} of the block: biases start at 0, weights Glorot-uniform
     * in ±√(6 / (fan-in + fan-out)), drawn from {@code u} uniform in [0, 1).
     */
    float initialValue(double u) {
        if (bias) {
            return 0f;
        }
        double limit = Math.sqrt(6.0 / (rows + cols));
        return (float) ((2 * u - 1) * limit);
    }
}
