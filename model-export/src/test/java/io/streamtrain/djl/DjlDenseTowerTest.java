package io.streamtrain.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DenseTower;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pure-Java tower the job trains with and the same tower on PyTorch through DJL's autograd
 * agree: logits, every dense parameter's gradient and the inputs' gradients, to float precision.
 */
class DjlDenseTowerTest {
    private static final int N = 18; // four blocks of the Java kernel and a partial one

    @ParameterizedTest
    @EnumSource(value = ModelKind.class, names = {"DEEPFM", "WDL", "DCN"})
    void theJavaKernelAndPyTorchsAutogradAgree(ModelKind kind) {
        ModelShape shape = new ModelShape(kind, 4, 5, List.of(24, 12), kind == ModelKind.DCN ? 2 : 0);
        Random r = new Random(9);
        float[] p = new float[shape.denseLayout().size()];
        shape.denseLayout().initialValues(3, 0, p);
        for (int k = 0; k < p.length; k++) {
            p[k] += (float) (r.nextGaussian() * 0.05); // biases away from 0: the ReLUs differ per example
        }
        int d = shape.inputWidth();
        float[] x0 = new float[N * d];
        for (int k = 0; k < x0.length; k++) {
            x0[k] = (float) r.nextGaussian();
        }
        double[] dLogits = new double[N];
        for (int e = 0; e < N; e++) {
            dLogits[e] = r.nextDouble() - 0.5;
        }

        DenseTower java = new DenseTower(shape);
        double[] javaLogits = new double[N];
        float[] javaGrad = new float[p.length];
        float[] javaDx = new float[N * d];
        java.forward(p, x0, N, javaLogits);
        java.backward(p, x0, N, dLogits, javaGrad, javaDx);

        double[] djlLogits = new double[N];
        float[] djlGrad = new float[p.length];
        float[] djlDx = new float[N * d];
        try (DjlDenseTower djl = DjlDenseTower.open(shape)) {
            djl.gradients(p, x0, N, dLogits, djlLogits, djlGrad, djlDx);
        }
        for (int e = 0; e < N; e++) {
            assertEquals(javaLogits[e], djlLogits[e], 1e-4, "logit " + e);
        }
        for (int k = 0; k < p.length; k++) {
            assertEquals(javaGrad[k], djlGrad[k], 1e-4, shape.denseLayout().blockAt(k).name() + " entry " + k);
        }
        for (int k = 0; k < javaDx.length; k++) {
            assertEquals(javaDx[k], djlDx[k], 1e-4, "input gradient " + k);
        }
    }
}
