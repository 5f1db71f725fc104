package io.streamtrain.model.deep;

/**
 * The forward and backward pass of a deep model's dense tower over a batch of inputs x0 (n × D, one
 * embedding per field), parameters laid out by {@link DenseLayout}. Two implementations: the
 * pure-Java {@link DenseTower}, which serving and the parity tests use, and the PyTorch tower the job
 * trains with (flink-jobs {@code io.streamtrain.train.dense}). An instance keeps the activations of
 * its last {@link #forward} for {@link #backward}: one per thread.
 */
public interface TowerKernel extends AutoCloseable {
    /** Writes the tower's logit for each of the {@code n} inputs in {@code x0} to {@code logits}. */
    void forward(float[] p, float[] x0, int n, double[] logits);

    /**
     * The backward pass of the last {@link #forward} (same {@code p}, {@code x0}, {@code n}) for
     * ∂loss/∂logit = {@code dLogits}: adds the parameters' gradients to {@code g} and writes
     * ∂loss/∂x0 to {@code dx0} (n × D).
     */
    void backward(float[] p, float[] x0, int n, double[] dLogits, float[] g, float[] dx0);

    /** Frees what the kernel holds outside the heap (nothing for the Java kernel). */
    @Override
    default void close() {}
}
