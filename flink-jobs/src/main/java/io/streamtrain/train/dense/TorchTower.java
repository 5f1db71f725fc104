package io.streamtrain.train.dense;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DenseBlock;
import io.streamtrain.model.deep.DenseLayout;
import io.streamtrain.model.deep.TowerKernel;
import java.nio.FloatBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dense tower on PyTorch through DJL, the kernel the job trains deep models with: the same math
 * and parameter layout as the pure-Java {@code DenseTower} (its parity reference), the gradients of
 * the dense parameters and of the input embeddings from PyTorch's autograd.
 *
 * <p>One intra-op and one inter-op thread unless {@code ai.djl.pytorch.num_threads} /
 * {@code num_interop_threads} say otherwise: a Flink slot is one thread, and two slots of a
 * TaskManager must not fight over a shared pool. Offline: the natives come from the
 * {@code pytorch-native-cpu} jar on the class path (the image's Flink {@code lib/}, the launcher's jar
 * locally), unpacked into {@code DJL_CACHE_DIR}, never from the network.
 *
 * <p>Each batch's arrays live in a sub-manager of this kernel's manager, opened by {@link #forward}
 * and closed by {@link #backward} (or by the next forward, or {@link #close}), so no native memory
 * outlives its batch. Autograd is switched on per call through PyTorch's thread-local grad mode, not
 * DJL's {@code GradientCollector}, which allows one collector per JVM and so one slot per TaskManager.
 */
public final class TorchTower implements TowerKernel {
    private static final Logger LOG = LoggerFactory.getLogger(TorchTower.class);
    private static final String ENGINE = "PyTorch";

    private final ModelShape shape;
    private final DenseLayout layout;
    private final NDManager manager;

    private NDManager batch;
    private NDArray params;
    private NDArray input;
    private NDArray logits;

    private TorchTower(ModelShape shape, NDManager manager) {
        this.shape = shape;
        this.layout = shape.denseLayout();
        this.manager = manager;
    }

    /** A tower on the PyTorch engine; fails with what to do when its natives are not on the class path. */
    public static TorchTower open(ModelShape shape) {
        System.setProperty("ai.djl.offline", "true");
        if (System.getProperty("ai.djl.pytorch.num_threads") == null) {
            System.setProperty("ai.djl.pytorch.num_threads", "1");
        }
        if (System.getProperty("ai.djl.pytorch.num_interop_threads") == null) {
            System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        }
        Engine engine;
        try {
            engine = Engine.getEngine(ENGINE);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            throw new IllegalStateException("the deep model's dense tower needs PyTorch's CPU natives, which were not found: put "
                    + "pytorch-native-cpu-2.7.1-linux-x86_64.jar on the TaskManagers' class path (Flink's lib/; the streamtrain "
                    + "image has it) and make DJL_CACHE_DIR writable", e);
        }
        LOG.info("dense tower of {} on {} {} with {} intra-op thread(s), natives unpacked under {}", shape.kind(),
                engine.getEngineName(), engine.getVersion(), JniUtils.getNumThreads(), System.getenv().getOrDefault("DJL_CACHE_DIR",
                        System.getProperty("DJL_CACHE_DIR", "~/.djl.ai")));
        return new TorchTower(shape, engine.newBaseManager(Device.cpu()));
    }

    @Override
    public void forward(float[] p, float[] x0, int n, double[] out) {
        closeBatch();
        batch = manager.newSubManager();
        int d = shape.inputWidth();
        boolean gradMode = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
        try {
            params = batch.create(FloatBuffer.wrap(p, 0, layout.size()), new Shape(layout.size()), DataType.FLOAT32);
            params.setRequiresGradient(true);
            input = batch.create(FloatBuffer.wrap(x0, 0, n * d), new Shape(n, d), DataType.FLOAT32);
            input.setRequiresGradient(true);
            NDArray h = input;
            for (int l = 0; l < shape.hidden().size(); l++) {
                h = Activation.relu(h.matMul(block("mlp." + l + ".weight")).add(block("mlp." + l + ".bias")));
            }
            if (shape.kind() == ModelKind.DCN) {
                NDArray x = input;
                for (int l = 0; l < shape.crossLayers(); l++) {
                    x = input.mul(x.matMul(block("cross." + l + ".weight")).add(block("cross." + l + ".bias"))).add(x);
                }
                h = x.concat(h, 1); // out.weight's rows: the cross output's, then the MLP's
            }
            logits = h.matMul(block("out.weight")).reshape(n);
        } finally {
            JniUtils.setGradMode(gradMode);
        }
        float[] z = logits.toFloatArray();
        for (int e = 0; e < n; e++) {
            out[e] = z[e];
        }
    }

    @Override
    public void backward(float[] p, float[] x0, int n, double[] dLogits, float[] g, float[] dx0) {
        if (batch == null) {
            throw new IllegalStateException("backward without a forward pass");
        }
        try {
            float[] dz = new float[n];
            for (int e = 0; e < n; e++) {
                dz[e] = (float) dLogits[e];
            }
            JniUtils.backward((PtNDArray) logits, (PtNDArray) batch.create(dz), false, false);
            float[] grad = params.getGradient().toFloatArray();
            for (int k = 0; k < grad.length; k++) {
                g[k] += grad[k];
            }
            System.arraycopy(input.getGradient().toFloatArray(), 0, dx0, 0, n * shape.inputWidth());
        } finally {
            closeBatch();
        }
    }

    /** Block {@code name} of the parameters, a view (rows × cols, or cols for a bias) whose gradient reaches {@link #params}. */
    private NDArray block(String name) {
        DenseBlock b = layout.block(name);
        NDArray slice = params.get(new NDIndex("{}:{}", b.offset(), b.offset() + b.size()));
        return b.bias() ? slice : slice.reshape(b.rows(), b.cols());
    }

    private void closeBatch() {
        if (batch != null) {
            batch.close();
            batch = null;
            params = null;
            input = null;
            logits = null;
        }
    }

    @Override
    public void close() {
        closeBatch();
        manager.close();
    }
}
