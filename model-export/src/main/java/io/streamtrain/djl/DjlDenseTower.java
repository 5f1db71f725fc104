package io.streamtrain.djl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.training.GradientCollector;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DenseBlock;
import io.streamtrain.model.deep.DenseLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A deep model's dense tower on DJL's PyTorch engine, its gradients from PyTorch's autograd: the
 * parity reference of the pure-Java {@code DenseTower} the job trains with (measured faster for
 * these towers on one thread, docs/benchmarks.md), and the other engine of {@code bench dense}.
 * Same math and parameter layout ({@link DenseLayout}). One intra-op and one inter-op thread unless
 * {@code ai.djl.pytorch.num_threads} / {@code num_interop_threads} say otherwise: a worker slot is one
 * thread. Natives from the {@code pytorch-native-cpu} jar, never the network.
 */
public final class DjlDenseTower implements AutoCloseable {
    private final ModelShape shape;
    private final DenseLayout layout;
    private final NDManager manager;

    private DjlDenseTower(ModelShape shape, NDManager manager) {
        this.shape = shape;
        this.layout = shape.denseLayout();
        this.manager = manager;
    }

    public static DjlDenseTower open(ModelShape shape) {
        System.setProperty("ai.djl.offline", "true");
        if (System.getProperty("ai.djl.pytorch.num_threads") == null) {
            System.setProperty("ai.djl.pytorch.num_threads", "1");
        }
        if (System.getProperty("ai.djl.pytorch.num_interop_threads") == null) {
            System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        }
        return new DjlDenseTower(shape, NDManager.newBaseManager("PyTorch"));
    }

    /**
     * The tower's forward and backward pass over the {@code n} inputs {@code x0} (n × D): writes
     * each logit to {@code logits}, adds the parameters' gradients for ∂loss/∂logit = {@code dLogits}
     * to {@code g} and writes ∂loss/∂x0 to {@code dx0}, as {@code DenseTower} does.
     */
    public void gradients(float[] p, float[] x0, int n, double[] dLogits, double[] logits, float[] g, float[] dx0) {
        int d = shape.inputWidth();
        try (NDManager batch = manager.newSubManager()) {
            List<NDArray> params = new ArrayList<>();
            List<Integer> offsets = new ArrayList<>();
            NDArray x = batch.create(Arrays.copyOf(x0, n * d), new Shape(n, d));
            x.setRequiresGradient(true);
            float[] dz = new float[n];
            for (int e = 0; e < n; e++) {
                dz[e] = (float) dLogits[e];
            }
            NDArray z;
            try (GradientCollector collector = Engine.getEngine("PyTorch").newGradientCollector()) {
                NDArray h = x;
                for (int l = 0; l < shape.hidden().size(); l++) {
                    NDArray w = parameter(batch, p, layout.block("mlp." + l + ".weight"), 0, params, offsets);
                    NDArray b = parameter(batch, p, layout.block("mlp." + l + ".bias"), 0, params, offsets);
                    h = Activation.relu(h.matMul(w).add(b));
                }
                DenseBlock out = layout.block("out.weight");
                int crossOut = shape.kind() == ModelKind.DCN ? d : 0;
                z = h.matMul(parameter(batch, p, out, crossOut, params, offsets));
                if (crossOut > 0) {
                    NDArray xl = x;
                    for (int l = 0; l < shape.crossLayers(); l++) {
                        NDArray w = parameter(batch, p, layout.block("cross." + l + ".weight"), 0, params, offsets);
                        NDArray b = parameter(batch, p, layout.block("cross." + l + ".bias"), 0, params, offsets);
                        xl = x.mul(xl.matMul(w).add(b)).add(xl);
                    }
                    z = z.add(xl.matMul(slice(batch, p, out.offset(), d, params, offsets)));
                }
                z = z.reshape(n);
                collector.backward(z.mul(batch.create(dz)).sum());
            }
            float[] zs = z.toFloatArray();
            for (int e = 0; e < n; e++) {
                logits[e] = zs[e];
            }
            for (int i = 0; i < params.size(); i++) {
                float[] grad = params.get(i).getGradient().toFloatArray();
                int at = offsets.get(i);
                for (int k = 0; k < grad.length; k++) {
                    g[at + k] += grad[k];
                }
            }
            System.arraycopy(x.getGradient().toFloatArray(), 0, dx0, 0, n * d);
        }
    }

    /** Block {@code b} as a parameter array (its first {@code skip} rows left out: DCN's out.weight starts with the cross part). */
    private static NDArray parameter(NDManager m, float[] p, DenseBlock b, int skip, List<NDArray> params, List<Integer> offsets) {
        int from = b.offset() + skip * b.cols();
        NDArray a = m.create(Arrays.copyOfRange(p, from, b.offset() + b.size()), new Shape(b.rows() - skip, b.cols()));
        if (b.bias()) {
            a = a.reshape(b.cols());
        }
        a.setRequiresGradient(true);
        params.add(a);
        offsets.add(from);
        return a;
    }

    /** {@code rows} × 1 parameters starting at {@code from}. */
    private static NDArray slice(NDManager m, float[] p, int from, int rows, List<NDArray> params, List<Integer> offsets) {
        NDArray a = m.create(Arrays.copyOfRange(p, from, from + rows), new Shape(rows, 1));
        a.setRequiresGradient(true);
        params.add(a);
        offsets.add(from);
        return a;
    }

    /** The engine, e.g. "PyTorch 2.7.1". */
    public String engine() {
        return manager.getEngine().getEngineName() + " " + manager.getEngine().getVersion();
    }

    @Override
    public void close() {
        manager.close();
    }
}
