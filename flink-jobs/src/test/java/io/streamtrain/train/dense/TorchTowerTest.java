package io.streamtrain.train.dense;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.streamtrain.model.BatchModel;
import io.streamtrain.model.Examples;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DeepModel;
import io.streamtrain.model.deep.DenseTower;
import io.streamtrain.model.deep.TowerKernels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The PyTorch tower the worker trains with against the pure-Java kernel, its parity reference
 * (itself pinned to finite differences by {@code DeepModelTest}): the tower's logits and gradients,
 * and a whole deep model's predictions and sparse and dense gradients over a batch with multi-valued,
 * absent and tower-less fields, for deepfm, wdl and dcn, to float precision.
 */
class TorchTowerTest {
    private static final int N = 18; // four blocks of the Java kernel and a partial one
    private static final double TOLERANCE = 1e-4;

    @ParameterizedTest
    @EnumSource(value = ModelKind.class, names = {"DEEPFM", "WDL", "DCN"})
    void theTowerAgreesWithTheJavaKernel(ModelKind kind) {
        ModelShape shape = new ModelShape(kind, 4, 5, List.of(24, 12), kind == ModelKind.DCN ? 2 : 0);
        Random r = new Random(9);
        float[] p = parameters(shape, r);
        int d = shape.inputWidth();
        float[] x0 = gaussian(r, N * d, 1);
        double[] dLogits = new double[N];
        for (int e = 0; e < N; e++) {
            dLogits[e] = r.nextDouble() - 0.5;
        }

        double[] javaLogits = new double[N];
        float[] javaGrad = new float[p.length];
        float[] javaDx = new float[N * d];
        DenseTower java = new DenseTower(shape);
        java.forward(p, x0, N, javaLogits);
        java.backward(p, x0, N, dLogits, javaGrad, javaDx);

        double[] torchLogits = new double[N];
        float[] torchGrad = new float[p.length];
        float[] torchDx = new float[N * d];
        try (TorchTower torch = TorchTower.open(shape)) {
            for (int pass = 0; pass < 2; pass++) { // a second batch on the same tower starts from a clean graph
                Arrays.fill(torchGrad, 0f);
                torch.forward(p, x0, N, torchLogits);
                torch.backward(p, x0, N, dLogits, torchGrad, torchDx);
            }
            assertThrows(IllegalStateException.class, () -> torch.backward(p, x0, N, dLogits, new float[p.length], new float[N * d]),
                    "a batch's arrays are gone after its backward pass");
        }
        for (int e = 0; e < N; e++) {
            assertEquals(javaLogits[e], torchLogits[e], TOLERANCE, "logit " + e);
        }
        for (int k = 0; k < p.length; k++) {
            assertEquals(javaGrad[k], torchGrad[k], TOLERANCE, shape.denseLayout().blockAt(k).name() + " entry " + k);
        }
        for (int k = 0; k < javaDx.length; k++) {
            assertEquals(javaDx[k], torchDx[k], TOLERANCE, "input gradient " + k);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ModelKind.class, names = {"DEEPFM", "WDL", "DCN"})
    void theWorkersModelOnPyTorchHasTheJavaModelsGradients(ModelKind kind) {
        ModelShape shape = new ModelShape(kind, 4, 6, List.of(32, 16), kind == ModelKind.DCN ? 2 : 0);
        Batch b = new Batch(shape, new Random(21));
        Result java = b.train(new DeepModel(shape, TowerKernels.JAVA));
        Result torch;
        try (BatchModel model = new DeepModel(shape, TorchTower::open)) {
            torch = b.train(model);
        }
        for (int e = 0; e < b.labels.length; e++) {
            assertEquals(java.predictions[e], torch.predictions[e], 1e-5, "prediction " + e);
        }
        for (int k = 0; k < java.denseGrad.length; k++) {
            assertEquals(java.denseGrad[k], torch.denseGrad[k], TOLERANCE, shape.denseLayout().blockAt(k).name() + " entry " + k);
        }
        for (int k = 0; k < java.tableGrad.length; k++) {
            assertEquals(java.tableGrad[k], torch.tableGrad[k], TOLERANCE, "sparse row " + k / shape.rowWidth() + " entry " + k % shape.rowWidth());
        }
    }

    @Test
    void twoSlotsTrainingAtOnceEachGetTheJavaModelsGradients() throws Exception {
        ModelShape shape = new ModelShape(ModelKind.DEEPFM, 4, 6, List.of(32, 16), 0);
        List<Batch> batches = new ArrayList<>();
        List<Result> expected = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Batch b = new Batch(shape, new Random(100 + i));
            batches.add(b);
            expected.add(b.train(new DeepModel(shape, TowerKernels.JAVA)));
        }
        java.util.concurrent.ExecutorService slots = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<?>> runs = new ArrayList<>();
            for (int slot = 0; slot < 2; slot++) {
                runs.add(slots.submit(() -> {
                    try (BatchModel model = new DeepModel(shape, TorchTower::open)) {
                        for (int round = 0; round < 25; round++) {
                            for (int i = 0; i < batches.size(); i++) {
                                Result got = batches.get(i).train(model);
                                Result want = expected.get(i);
                                for (int k = 0; k < want.denseGrad.length; k++) {
                                    assertEquals(want.denseGrad[k], got.denseGrad[k], TOLERANCE, "round " + round + " batch " + i + " dense " + k);
                                }
                                for (int k = 0; k < want.tableGrad.length; k++) {
                                    assertEquals(want.tableGrad[k], got.tableGrad[k], TOLERANCE, "round " + round + " batch " + i + " sparse " + k);
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (var run : runs) {
                run.get();
            }
        } finally {
            slots.shutdownNow();
        }
    }

    private static float[] parameters(ModelShape shape, Random r) {
        float[] p = new float[shape.denseLayout().size()];
        shape.denseLayout().initialValues(3, 0, p);
        for (int k = 0; k < p.length; k++) {
            p[k] += (float) (r.nextGaussian() * 0.05); // biases away from 0: the ReLUs differ per example
        }
        return p;
    }

    private static float[] gaussian(Random r, int n, double scale) {
        float[] a = new float[n];
        for (int k = 0; k < n; k++) {
            a[k] = (float) (r.nextGaussian() * scale);
        }
        return a;
    }

    private record Result(double[] predictions, float[] tableGrad, float[] denseGrad) {}

    /**
     * 40 examples over 30 rows (row 0 the bias): each draws a feature for some of the tower's fields
     * (so some are absent), a second value for field 1 (multi-valued) and one feature of a field
     * beyond the tower (wide part only).
     */
    private static final class Batch {
        final ModelShape shape;
        final float[] table;
        final float[] dense;
        final float[] labels = new float[40];
        final int[] starts = new int[41];
        final int[] slots;
        final int[] fields;
        final float[] values;

        Batch(ModelShape shape, Random r) {
            this.shape = shape;
            int width = shape.rowWidth();
            int rows = 30;
            table = gaussian(r, rows * width, 0.3);
            dense = parameters(shape, r);
            List<int[]> occurrences = new ArrayList<>();
            for (int e = 0; e < labels.length; e++) {
                labels[e] = r.nextBoolean() ? 1 : 0;
                for (int f = 0; f < shape.fields(); f++) {
                    if (r.nextInt(5) > 0) {
                        occurrences.add(new int[] {1 + r.nextInt(rows - 1), f});
                    }
                }
                occurrences.add(new int[] {1 + r.nextInt(rows - 1), 1});
                occurrences.add(new int[] {1 + r.nextInt(rows - 1), shape.fields() + 3});
                starts[e + 1] = occurrences.size();
            }
            slots = new int[occurrences.size()];
            fields = new int[occurrences.size()];
            values = new float[occurrences.size()];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = occurrences.get(i)[0] * width;
                fields[i] = occurrences.get(i)[1];
                values[i] = 0.5f + r.nextFloat();
            }
        }

        Result train(BatchModel model) {
            double[] predictions = new double[labels.length];
            float[] tableGrad = new float[table.length];
            float[] denseGrad = new float[dense.length];
            model.gradients(new Examples(labels.length, starts, slots, fields, values, 0), labels, table, dense, predictions,
                    tableGrad, denseGrad);
            return new Result(predictions, tableGrad, denseGrad);
        }
    }
}
