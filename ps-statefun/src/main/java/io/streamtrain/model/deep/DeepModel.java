package io.streamtrain.model.deep;

import io.streamtrain.model.BatchModel;
import io.streamtrain.model.Examples;
import io.streamtrain.model.FactorizationMachine;
import io.streamtrain.model.LogisticRegression;
import io.streamtrain.model.Model;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import java.util.Arrays;

/**
 * DeepFM, Wide&Deep and DCN-v2: logit = the wide part (the factorization machine for DeepFM, the
 * bias and linear weights otherwise, computed as today) + the {@link DenseTower} over the fields'
 * embeddings. Each field's embedding is Σ value × embedding over the example's features of that
 * field (a multi-valued field is pooled by the sum; an absent field is zero); features of fields
 * outside {@code 0 .. fields-1} reach the wide part only. Sparse rows keep the fm layout
 * [w, v_1 … v_dim], and DeepFM's FM and tower share the embeddings. The tower runs on the
 * {@link TowerKernel} its {@link TowerKernels} makes on first use (pure Java unless told otherwise).
 */
public final class DeepModel implements BatchModel {
    private static final long serialVersionUID = 1L;
    private final ModelShape shape;
    private final Model wide;
    private final TowerKernels kernels;
    private final DenseLayout layout;

    private transient TowerKernel tower;
    private transient float[] x0;
    private transient float[] dx0;
    private transient double[] towerLogits;
    private transient double[] scratch;

    public DeepModel(ModelShape shape) {
        this(shape, TowerKernels.JAVA);
    }

    public DeepModel(ModelShape shape, TowerKernels kernels) {
        if (!shape.kind().isDeep()) {
            throw new IllegalArgumentException(shape.kind() + " has no dense tower");
        }
        this.shape = shape;
        this.wide = shape.kind() == ModelKind.DEEPFM ? new FactorizationMachine(shape.dim()) : new LogisticRegression();
        this.kernels = kernels;
        this.layout = shape.denseLayout();
    }

    @Override
    public int width() {
        return shape.rowWidth();
    }

    @Override
    public DenseLayout denseLayout() {
        return layout;
    }

    @Override
    public void logits(Examples ex, float[] table, float[] dense, double[] logits) {
        towerForward(ex, table, dense);
        for (int e = 0; e < ex.size(); e++) {
            logits[e] = wide.logit(table, ex.biasSlot(), ex.slots(), ex.values(), ex.starts()[e], ex.starts()[e + 1], scratch)
                    + towerLogits[e];
        }
    }

    @Override
    public void gradients(Examples ex, float[] labels, float[] table, float[] dense,
                          double[] predictions, float[] tableGrad, float[] denseGrad) {
        int n = ex.size();
        towerForward(ex, table, dense);
        double[] dLogits = new double[n];
        for (int e = 0; e < n; e++) {
            int from = ex.starts()[e];
            int to = ex.starts()[e + 1];
            double p = Model.sigmoid(
                    wide.logit(table, ex.biasSlot(), ex.slots(), ex.values(), from, to, scratch) + towerLogits[e]);
            predictions[e] = p;
            dLogits[e] = p - labels[e];
            wide.backward(table, ex.biasSlot(), ex.slots(), ex.values(), from, to, dLogits[e], scratch, tableGrad);
        }
        tower.backward(dense, x0, n, dLogits, denseGrad, dx0);
        int dim = shape.dim();
        int d = shape.inputWidth();
        for (int e = 0; e < n; e++) {
            for (int i = ex.starts()[e]; i < ex.starts()[e + 1]; i++) {
                int field = ex.fields()[i];
                if (field >= shape.fields()) {
                    continue;
                }
                float x = ex.values()[i];
                int row = ex.slots()[i] + 1;
                int at = e * d + field * dim;
                for (int f = 0; f < dim; f++) {
                    tableGrad[row + f] += dx0[at + f] * x;
                }
            }
        }
    }

    /** Pools the embeddings into x0 and runs the tower forward into {@code towerLogits}. */
    private void towerForward(Examples ex, float[] table, float[] dense) {
        int n = ex.size();
        int d = shape.inputWidth();
        int dim = shape.dim();
        if (tower == null) {
            tower = kernels.create(shape);
        }
        if (x0 == null || x0.length < n * d) {
            x0 = new float[n * d];
            dx0 = new float[n * d];
            towerLogits = new double[n];
            scratch = new double[width()];
        }
        Arrays.fill(x0, 0, n * d, 0f);
        for (int e = 0; e < n; e++) {
            for (int i = ex.starts()[e]; i < ex.starts()[e + 1]; i++) {
                int field = ex.fields()[i];
                if (field >= shape.fields()) {
                    continue;
                }
                float x = ex.values()[i];
                int row = ex.slots()[i] + 1;
                int at = e * d + field * dim;
                for (int f = 0; f < dim; f++) {
                    x0[at + f] += table[row + f] * x;
                }
            }
        }
        tower.forward(dense, x0, n, towerLogits);
    }

    @Override
    public void close() {
        if (tower != null) {
            tower.close();
            tower = null;
        }
    }
}
