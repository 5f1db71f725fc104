package io.streamtrain.model.deep;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;

/**
 * The dense tower of a deep model over a batch of inputs x0 (n × D, one embedding per field), in
 * pure Java (inner loops y += a·w, which the JIT vectorises): an MLP with ReLU after every hidden
 * layer and, for DCN-v2, cross layers x_{l+1} = x0 ⊙ (x_l·W_l + b_l) + x_l beside it;
 * {@code out.weight} maps the last cross output and the last hidden layer to one logit per example.
 * Parameters are laid out by {@link DenseLayout}. The reference the other {@link TowerKernel} is
 * held to, and the kernel serving uses.
 */
public final class DenseTower implements TowerKernel {
    private final int d;
    private final int[] widths;
    private final int[] mlpWeight;
    private final int[] mlpBias;
    private final int[] crossWeight;
    private final int[] crossBias;
    private final int out;
    private final boolean crossOut;

    private int capacity;
    private float[][] act;
    private float[][] dAct;
    private float[][] crossX;
    private float[][] crossU;
    private float[] du;
    private float[] dxl;
    private float[] gx;

    public DenseTower(ModelShape shape) {
        DenseLayout layout = shape.denseLayout();
        this.d = shape.inputWidth();
        this.widths = shape.hidden().stream().mapToInt(Integer::intValue).toArray();
        this.mlpWeight = new int[widths.length];
        this.mlpBias = new int[widths.length];
        for (int l = 0; l < widths.length; l++) {
            mlpWeight[l] = layout.block("mlp." + l + ".weight").offset();
            mlpBias[l] = layout.block("mlp." + l + ".bias").offset();
        }
        this.crossWeight = new int[shape.crossLayers()];
        this.crossBias = new int[shape.crossLayers()];
        for (int l = 0; l < crossWeight.length; l++) {
            crossWeight[l] = layout.block("cross." + l + ".weight").offset();
            crossBias[l] = layout.block("cross." + l + ".bias").offset();
        }
        this.out = layout.block("out.weight").offset();
        this.crossOut = shape.kind() == ModelKind.DCN;
    }

    @Override
    public void forward(float[] p, float[] x0, int n, double[] logits) {
        ensureCapacity(n);
        float[] h = x0;
        int in = d;
        for (int l = 0; l < widths.length; l++) {
            Dense.affine(h, n, in, p, mlpWeight[l], mlpBias[l], widths[l], act[l]);
            Dense.relu(act[l], n * widths[l]);
            h = act[l];
            in = widths[l];
        }
        float[] x = x0;
        for (int l = 0; l < crossWeight.length; l++) {
            Dense.affine(x, n, d, p, crossWeight[l], crossBias[l], d, crossU[l]);
            float[] u = crossU[l];
            float[] next = crossX[l];
            for (int k = 0; k < n * d; k++) {
                next[k] = x0[k] * u[k] + x[k];
            }
            x = next;
        }
        int hiddenOut = out + (crossOut ? d : 0);
        for (int e = 0; e < n; e++) {
            double z = Dense.dot(h, e * in, p, hiddenOut, in);
            if (crossOut) {
                z += Dense.dot(x, e * d, p, out, d);
            }
            logits[e] = z;
        }
    }

    @Override
    public void backward(float[] p, float[] x0, int n, double[] dLogits, float[] g, float[] dx0) {
        int last = widths.length - 1;
        float[] h = last < 0 ? x0 : act[last];
        int in = last < 0 ? d : widths[last];
        float[] dh = last < 0 ? dx0 : dAct[last];
        int hiddenOut = out + (crossOut ? d : 0);
        for (int e = 0; e < n; e++) {
            float dz = (float) dLogits[e];
            for (int j = 0; j < in; j++) {
                dh[e * in + j] = dz * p[hiddenOut + j];
                g[hiddenOut + j] += dz * h[e * in + j];
            }
        }
        for (int l = last; l >= 0; l--) {
            Dense.reluBackward(act[l], dAct[l], n * widths[l]);
            float[] input = l == 0 ? x0 : act[l - 1];
            int inW = l == 0 ? d : widths[l - 1];
            Dense.affineBackward(input, n, inW, p, mlpWeight[l], mlpBias[l], widths[l], dAct[l], g, l == 0 ? dx0 : dAct[l - 1]);
        }
        if (crossWeight.length > 0) {
            crossBackward(p, x0, n, dLogits, g, dx0);
        }
    }

    /** Adds the cross layers' share of the gradients, from the output layer down to x0. */
    private void crossBackward(float[] p, float[] x0, int n, double[] dLogits, float[] g, float[] dx0) {
        int len = n * d;
        float[] xL = crossX[crossWeight.length - 1];
        for (int e = 0; e < n; e++) {
            float dz = (float) dLogits[e];
            for (int k = 0; k < d; k++) {
                gx[e * d + k] = dz * p[out + k];
                g[out + k] += dz * xL[e * d + k];
            }
        }
        for (int l = crossWeight.length - 1; l >= 0; l--) {
            float[] u = crossU[l];
            for (int k = 0; k < len; k++) {
                dx0[k] += gx[k] * u[k];
                du[k] = gx[k] * x0[k];
            }
            float[] x = l == 0 ? x0 : crossX[l - 1];
            Dense.affineBackward(x, n, d, p, crossWeight[l], crossBias[l], d, du, g, dxl);
            for (int k = 0; k < len; k++) {
                gx[k] += dxl[k];
            }
        }
        for (int k = 0; k < len; k++) {
            dx0[k] += gx[k];
        }
    }

    private void ensureCapacity(int n) {
        if (n <= capacity) {
            return;
        }
        capacity = Math.max(n, capacity * 2);
        act = new float[widths.length][];
        dAct = new float[widths.length][];
        for (int l = 0; l < widths.length; l++) {
            act[l] = new float[capacity * widths[l]];
            dAct[l] = new float[capacity * widths[l]];
        }
        crossX = new float[crossWeight.length][];
        crossU = new float[crossWeight.length][];
        for (int l = 0; l < crossWeight.length; l++) {
            crossX[l] = new float[capacity * d];
            crossU[l] = new float[capacity * d];
        }
        int crossBuffers = crossWeight.length > 0 ? capacity * d : 0;
        du = new float[crossBuffers];
        dxl = new float[crossBuffers];
        gx = new float[crossBuffers];
    }
}
