package io.streamtrain.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The analytic gradients of each model match central finite differences of its logit. */
class ModelGradientTest {
    @Test
    void factorizationMachineGradientMatchesFiniteDifferences() {
        checkGradient(new FactorizationMachine(4));
    }

    @Test
    void logisticRegressionGradientMatchesFiniteDifferences() {
        checkGradient(new LogisticRegression());
    }

    @Test
    void factorizationMachineLogitEqualsThePairwiseDefinition() {
        FactorizationMachine fm = new FactorizationMachine(3);
        Random r = new Random(3);
        int n = 5;
        float[] table = randomTable(r, n + 1, fm.width());
        int[] slots = new int[n];
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            slots[i] = (i + 1) * fm.width();
            values[i] = r.nextFloat() * 2 - 1;
        }
        double expected = table[0];
        for (int i = 0; i < n; i++) {
            expected += table[slots[i]] * values[i];
            for (int j = i + 1; j < n; j++) {
                double dot = 0;
                for (int f = 0; f < 3; f++) {
                    dot += table[slots[i] + 1 + f] * table[slots[j] + 1 + f];
                }
                expected += dot * values[i] * values[j];
            }
        }
        assertEquals(expected, fm.logit(table, 0, slots, values, 0, n, new double[fm.width()]), 1e-6);
    }

    private static void checkGradient(Model model) {
        Random r = new Random(7);
        int width = model.width();
        int n = 6;
        float[] table = randomTable(r, n + 1, width);
        int[] slots = new int[n];
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            slots[i] = (i + 1) * width;
            values[i] = r.nextFloat() * 2 - 1;
        }
        double[] scratch = new double[width];
        float[] grad = new float[table.length];
        model.logit(table, 0, slots, values, 0, n, scratch);
        model.backward(table, 0, slots, values, 0, n, 1.0, scratch, grad);
        for (int p = 0; p < table.length; p++) {
            if (p < width && p != 0) {
                continue; // the bias row has only a linear weight
            }
            float saved = table[p];
            double h = 1e-3;
            table[p] = (float) (saved + h);
            double up = model.logit(table, 0, slots, values, 0, n, new double[width]);
            table[p] = (float) (saved - h);
            double down = model.logit(table, 0, slots, values, 0, n, new double[width]);
            table[p] = saved;
            assertEquals((up - down) / (2 * h), grad[p], 2e-3, "parameter " + p);
        }
    }

    private static float[] randomTable(Random r, int rows, int width) {
        float[] t = new float[rows * width];
        for (int i = 0; i < t.length; i++) {
            t[i] = (float) (r.nextGaussian() * 0.5);
        }
        return t;
    }
}
