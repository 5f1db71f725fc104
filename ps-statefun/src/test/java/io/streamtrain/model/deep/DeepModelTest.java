package io.streamtrain.model.deep;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.model.BatchModel;
import io.streamtrain.model.Examples;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * DeepModel's batch kernels against {@link DeepReference}: the same logits, and gradients equal to
 * central finite differences of the reference's log loss, for every dense parameter and every
 * entry of every sparse row.
 */
class DeepModelTest {
    private static final int FIELDS = 3;
    private static final int DIM = 2;

    /** Four examples over six rows (bias at 0): a multi-valued field, an absent field, a field outside the tower. */
    private static final int[] STARTS = {0, 3, 5, 9, 10};
    private static final int[] ROWS = {1, 2, 3, /**/ 4, 1, /**/ 2, 5, 3, 4, /**/ 5};
    private static final int[] FIELD_OF = {0, 1, 2, /**/ 1, 0, /**/ 1, 1, 2, 7, /**/ 0};
    private static final float[] LABELS = {1, 0, 1, 0};

    static ModelShape shape(ModelKind kind) {
        return new ModelShape(kind, DIM, FIELDS, List.of(5, 4), kind == ModelKind.DCN ? 2 : 0);
    }

    @ParameterizedTest
    @EnumSource(value = ModelKind.class, names = {"DEEPFM", "WDL", "DCN"})
    void logitsEqualTheReference(ModelKind kind) {
        Case c = new Case(kind, 11);
        double[] logits = new double[LABELS.length];
        c.model.logits(c.examples(), c.table, c.dense, logits);
        for (int e = 0; e < LABELS.length; e++) {
            assertEquals(c.referenceLogit(c.tableD(), c.denseD(), e), logits[e], 1e-5, "example " + e);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ModelKind.class, names = {"DEEPFM", "WDL", "DCN"})
    void gradientsMatchFiniteDifferencesOfTheReference(ModelKind kind) {
        Case c = new Case(kind, 5);
        float[] tableGrad = new float[c.table.length];
        float[] denseGrad = new float[c.dense.length];
        double[] predictions = new double[LABELS.length];
        c.model.gradients(c.examples(), LABELS, c.table, c.dense, predictions, tableGrad, denseGrad);

        double[] table = c.tableD();
        double[] dense = c.denseD();
        for (int e = 0; e < LABELS.length; e++) {
            assertEquals(sigmoid(c.referenceLogit(table, dense, e)), predictions[e], 1e-6);
        }
        for (int k = 0; k < dense.length; k++) {
            assertEquals(c.numericGradient(table, dense, dense, k), denseGrad[k], 2e-4,
                    "dense " + c.model.denseLayout().blockAt(k).name() + " entry " + k);
        }
        for (int k = 0; k < table.length; k++) {
            assertEquals(c.numericGradient(table, dense, table, k), tableGrad[k], 2e-4, "table entry " + k);
        }
    }

    @Test
    void layoutNamesTheBlocksInOrder() {
        DenseLayout dcn = new ModelShape(ModelKind.DCN, 16, 39, List.of(256, 128, 64), 2).denseLayout();
        assertEquals(List.of("mlp.0.weight", "mlp.0.bias", "mlp.1.weight", "mlp.1.bias", "mlp.2.weight", "mlp.2.bias",
                "cross.0.weight", "cross.0.bias", "cross.1.weight", "cross.1.bias", "out.weight"), dcn.names());
        DenseBlock first = dcn.block("mlp.0.weight");
        assertEquals(624, first.rows());
        assertEquals(256, first.cols());
        assertEquals(624 + 64, dcn.block("out.weight").rows());
        int mlp = 624 * 256 + 256 + 256 * 128 + 128 + 128 * 64 + 64;
        int cross = 2 * (624 * 624 + 624);
        assertEquals(mlp + cross + 688, dcn.size());
        DenseLayout deepfm = new ModelShape(ModelKind.DEEPFM, 16, 39, List.of(256, 128, 64), 0).denseLayout();
        assertEquals(mlp + 64, deepfm.size());
    }

    @Test
    void initialValuesDependOnTheIndexAloneAndFollowTheBlockRule() {
        DenseLayout layout = shape(ModelKind.DCN).denseLayout();
        float[] whole = new float[layout.size() + 7];
        layout.initialValues(3, 0, whole);
        float[] slice = new float[10];
        layout.initialValues(3, 40, slice);
        assertArrayEquals(java.util.Arrays.copyOfRange(whole, 40, 50), slice);
        for (int k = 0; k < whole.length; k++) {
            if (k >= layout.size()) {
                assertEquals(0f, whole[k], "past the end");
                continue;
            }
            DenseBlock b = layout.blockAt(k);
            if (b.bias()) {
                assertEquals(0f, whole[k], b.name());
            } else {
                assertTrue(Math.abs(whole[k]) <= Math.sqrt(6.0 / (b.rows() + b.cols())), b.name());
            }
        }
        float[] other = new float[whole.length];
        layout.initialValues(4, 0, other);
        assertTrue(!java.util.Arrays.equals(whole, other), "the seed matters");
    }

    @Test
    void shapesThatMakeNoSenseAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ModelShape(ModelKind.DCN, 4, 3, List.of(8), 0));
        assertThrows(IllegalArgumentException.class, () -> new ModelShape(ModelKind.DEEPFM, 4, 3, List.of(8), 1));
        assertThrows(IllegalArgumentException.class, () -> new ModelShape(ModelKind.WDL, 4, 0, List.of(8), 0));
        assertThrows(IllegalArgumentException.class, () -> new ModelShape(ModelKind.WDL, 4, 3, List.of(0), 0));
    }

    private static double sigmoid(double z) {
        return 1 / (1 + Math.exp(-z));
    }

    /** A model with random rows and dense parameters, large enough that the ReLUs are not all off. */
    private static final class Case {
        final BatchModel model;
        final DeepReference reference;
        final int width = 1 + DIM;
        final float[] table;
        final float[] dense;
        final int[] slots = new int[ROWS.length];

        Case(ModelKind kind, long seed) {
            ModelShape shape = shape(kind);
            model = shape.batchModel();
            reference = new DeepReference(shape);
            Random r = new Random(seed);
            table = new float[6 * width];
            for (int k = 0; k < table.length; k++) {
                table[k] = (float) (r.nextGaussian() * 0.5);
            }
            dense = new float[shape.denseLayout().size()];
            for (int k = 0; k < dense.length; k++) {
                dense[k] = (float) (r.nextGaussian() * 0.5);
            }
            for (int i = 0; i < ROWS.length; i++) {
                slots[i] = ROWS[i] * width;
            }
        }

        float[] values() {
            float[] v = new float[ROWS.length];
            for (int i = 0; i < v.length; i++) {
                v[i] = 0.5f + 0.25f * (i % 3);
            }
            return v;
        }

        Examples examples() {
            return new Examples(LABELS.length, STARTS, slots, FIELD_OF, values(), 0);
        }

        double[] tableD() {
            return toDouble(table);
        }

        double[] denseD() {
            return toDouble(dense);
        }

        double referenceLogit(double[] t, double[] p, int e) {
            return reference.logit(t, 0, slots, FIELD_OF, values(), STARTS[e], STARTS[e + 1], p);
        }

        double loss(double[] t, double[] p) {
            double sum = 0;
            for (int e = 0; e < LABELS.length; e++) {
                double q = sigmoid(referenceLogit(t, p, e));
                sum -= LABELS[e] > 0.5 ? Math.log(q) : Math.log(1 - q);
            }
            return sum;
        }

        /** ∂loss/∂target[k] by a central difference; {@code target} is {@code t} or {@code p}. */
        double numericGradient(double[] t, double[] p, double[] target, int k) {
            double eps = 1e-6;
            double saved = target[k];
            target[k] = saved + eps;
            double up = loss(t, p);
            target[k] = saved - eps;
            double down = loss(t, p);
            target[k] = saved;
            return (up - down) / (2 * eps);
        }

        private static double[] toDouble(float[] f) {
            double[] d = new double[f.length];
            for (int k = 0; k < f.length; k++) {
                d[k] = f[k];
            }
            return d;
        }
    }
}
