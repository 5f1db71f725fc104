package io.streamtrain.model.deep;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;

/**
 * The deep models written out the long way, in doubles, one example at a time, straight from
 * their definitions (pairwise FM terms, explicit sums per neuron): an implementation independent
 * of {@link DeepModel}'s kernels to check it against. Reads the dense blocks by name only.
 */
final class DeepReference {
    private final ModelShape shape;
    private final DenseLayout layout;

    DeepReference(ModelShape shape) {
        this.shape = shape;
        this.layout = shape.denseLayout();
    }

    /** The logit of the example made of occurrences {@code [from, to)}; rows are width 1 + dim, the bias row at {@code biasSlot}. */
    double logit(double[] table, int biasSlot, int[] slots, int[] fields, float[] values, int from, int to, double[] dense) {
        int dim = shape.dim();
        double z = table[biasSlot];
        for (int i = from; i < to; i++) {
            z += table[slots[i]] * values[i];
        }
        if (shape.kind() == ModelKind.DEEPFM) {
            for (int i = from; i < to; i++) {
                for (int j = i + 1; j < to; j++) {
                    double dot = 0;
                    for (int f = 0; f < dim; f++) {
                        dot += table[slots[i] + 1 + f] * table[slots[j] + 1 + f];
                    }
                    z += dot * values[i] * values[j];
                }
            }
        }
        int d = shape.fields() * dim;
        double[] x0 = new double[d];
        for (int i = from; i < to; i++) {
            if (fields[i] < shape.fields()) {
                for (int f = 0; f < dim; f++) {
                    x0[fields[i] * dim + f] += table[slots[i] + 1 + f] * values[i];
                }
            }
        }
        double[] h = x0;
        for (int l = 0; l < shape.hidden().size(); l++) {
            DenseBlock w = layout.block("mlp." + l + ".weight");
            DenseBlock b = layout.block("mlp." + l + ".bias");
            double[] next = new double[w.cols()];
            for (int o = 0; o < w.cols(); o++) {
                double s = dense[b.offset() + o];
                for (int i = 0; i < w.rows(); i++) {
                    s += h[i] * dense[w.offset() + i * w.cols() + o];
                }
                next[o] = Math.max(0, s);
            }
            h = next;
        }
        double[] x = x0;
        for (int l = 0; l < shape.crossLayers(); l++) {
            DenseBlock w = layout.block("cross." + l + ".weight");
            DenseBlock b = layout.block("cross." + l + ".bias");
            double[] next = new double[d];
            for (int k = 0; k < d; k++) {
                double u = dense[b.offset() + k];
                for (int j = 0; j < d; j++) {
                    u += x[j] * dense[w.offset() + j * d + k];
                }
                next[k] = x0[k] * u + x[k];
            }
            x = next;
        }
        DenseBlock out = layout.block("out.weight");
        int at = out.offset();
        if (shape.kind() == ModelKind.DCN) {
            for (int k = 0; k < d; k++) {
                z += x[k] * dense[at++];
            }
        }
        for (double v : h) {
            z += v * dense[at++];
        }
        return z;
    }
}
