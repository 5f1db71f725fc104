package io.streamtrain.model.deep;

/**
 * The matrix kernels of the dense tower, over row-major float arrays. The inner loops run over a
 * contiguous row of the weight (fan-out entries) as y += a·w, the form the JIT vectorises.
 */
final class Dense {
    private Dense() {}

    /** y[n × out] = x[n × in] · W[in × out] + b; W at {@code p[w ..]}, b at {@code p[b ..]}. */
    static void affine(float[] x, int n, int in, float[] p, int w, int b, int out, float[] y) {
        for (int e = 0; e < n; e++) {
            int yo = e * out;
            System.arraycopy(p, b, y, yo, out);
            int xo = e * in;
            for (int i = 0; i < in; i++) {
                float xi = x[xo + i];
                if (xi == 0f) {
                    continue; // ReLU outputs and absent fields are often zero
                }
                int wo = w + i * out;
                for (int o = 0; o < out; o++) {
                    y[yo + o] += xi * p[wo + o];
                }
            }
        }
    }

    /**
     * The backward pass of {@link #affine} for dy[n × out]: adds xᵀ·dy to the weight's gradient
     * and the column sums of dy to the bias's, both at their offsets in {@code g}; writes
     * dx = dy·Wᵀ to {@code dx} unless it is null.
     */
    static void affineBackward(float[] x, int n, int in, float[] p, int w, int b, int out, float[] dy, float[] g, float[] dx) {
        for (int e = 0; e < n; e++) {
            int yo = e * out;
            for (int o = 0; o < out; o++) {
                g[b + o] += dy[yo + o];
            }
            int xo = e * in;
            for (int i = 0; i < in; i++) {
                float xi = x[xo + i];
                if (xi == 0f) {
                    continue;
                }
                int wo = w + i * out;
                for (int o = 0; o < out; o++) {
                    g[wo + o] += xi * dy[yo + o];
                }
            }
            if (dx != null) {
                for (int i = 0; i < in; i++) {
                    dx[xo + i] = dot(dy, yo, p, w + i * out, out);
                }
            }
        }
    }

    /** Σ a[ao + k]·b[bo + k] for k < len, in four running sums (the JIT does not reorder float sums itself). */
    static float dot(float[] a, int ao, float[] b, int bo, int len) {
        float s0 = 0;
        float s1 = 0;
        float s2 = 0;
        float s3 = 0;
        int k = 0;
        for (; k + 3 < len; k += 4) {
            s0 += a[ao + k] * b[bo + k];
            s1 += a[ao + k + 1] * b[bo + k + 1];
            s2 += a[ao + k + 2] * b[bo + k + 2];
            s3 += a[ao + k + 3] * b[bo + k + 3];
        }
        for (; k < len; k++) {
            s0 += a[ao + k] * b[bo + k];
        }
        return (s0 + s1) + (s2 + s3);
    }

    static void relu(float[] y, int len) {
        for (int k = 0; k < len; k++) {
            if (y[k] < 0f) {
                y[k] = 0f;
            }
        }
    }

    /** Zeroes dy where the ReLU's output y was 0 (its gradient there). */
    static void reluBackward(float[] y, float[] dy, int len) {
        for (int k = 0; k < len; k++) {
            if (y[k] <= 0f) {
                dy[k] = 0f;
            }
        }
    }
}
