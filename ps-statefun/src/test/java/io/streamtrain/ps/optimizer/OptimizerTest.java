package io.streamtrain.ps.optimizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.streamtrain.ps.PsOptions;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class OptimizerTest {
    private static OptimizerConfig config(OptimizerKind kind) {
        return new OptimizerConfig(kind, 0.1, 0.0, 0.0, 1.0, 0.1);
    }

    @Test
    void everyOptimizerDescendsAQuadratic() {
        for (OptimizerKind name : List.of(OptimizerKind.SGD, OptimizerKind.ADAGRAD, OptimizerKind.ROWWISE_ADAGRAD, OptimizerKind.FTRL)) {
            Optimizer o = config(name).create();
            float[] w = {3f, -2f, 1f};
            float[] slots = o.initialSlots(3);
            for (int step = 0; step < 2000; step++) {
                float[] grad = {w[0] - 1f, w[1] + 1f, w[2]}; // minimum at (1, -1, 0)
                o.apply(w, slots, grad, 0, 1);
            }
            assertEquals(1f, w[0], 0.05, name.toString());
            assertEquals(-1f, w[1], 0.05, name.toString());
            assertEquals(0f, w[2], 0.05, name.toString());
        }
    }

    @Test
    void sgdTakesExactlyOneStep() {
        Optimizer o = config(OptimizerKind.SGD).create();
        float[] w = {1f};
        o.apply(w, o.initialSlots(1), new float[] {2f}, 0, 1);
        assertEquals(1f - 0.1f * 2f, w[0], 1e-7);
    }

    @Test
    void rowwiseAdagradSharesOneAccumulatorAcrossTheEmbedding() {
        Optimizer o = config(OptimizerKind.ROWWISE_ADAGRAD).create();
        float[] w = {0f, 1f, 1f};
        float[] slots = o.initialSlots(3);
        assertEquals(2, slots.length, "the linear weight's accumulator and the embedding's");
        o.apply(w, slots, new float[] {1f, 3f, 1f}, 0, 1);
        assertEquals(0.1f + 1f, slots[0], 1e-6);
        assertEquals(0.1f + (9f + 1f) / 2, slots[1], 1e-6, "grows by the mean squared gradient");
        float step = 0.1f / (float) Math.sqrt(5.1f);
        assertEquals(1f - step * 3f, w[1], 1e-6);
        assertEquals(1f - step * 1f, w[2], 1e-6, "the same step size for every coordinate");
        assertEquals(-0.1f / (float) Math.sqrt(1.1f), w[0], 1e-6);
        assertEquals(1, o.initialSlots(1).length, "an LR row has only its linear weight");
    }

    @Test
    void ftrlL1KeepsAWeakWeightAtZero() {
        Optimizer o = new OptimizerConfig(OptimizerKind.FTRL, 0.1, 0.0, 5.0, 1.0, 0.1).create();
        float[] w = {0f, 0.5f};
        float[] slots = o.initialSlots(2);
        o.apply(w, slots, new float[] {0.5f, 0f}, 0, 1);
        assertEquals(0f, w[0]);
    }

    @Test
    void aScaledDenseStepMovesLessWhileTheMomentsTakeTheWholeGradient() {
        for (DenseOptimizerKind kind : DenseOptimizerKind.values()) {
            Optimizer o = new DenseOptimizerConfig(kind, 0.01, 0.1, false, true).create();
            float[] whole = {1f, -2f};
            float[] wholeSlots = o.initialSlots(2);
            float[] scaled = whole.clone();
            float[] scaledSlots = o.initialSlots(2);
            float[] grad = {0.5f, -3f};
            o.apply(whole, wholeSlots, grad, 0, 4);
            o.apply(scaled, scaledSlots, grad, 0, 4, 0.25f);
            for (int i = 0; i < 2; i++) {
                float start = i == 0 ? 1f : -2f;
                assertEquals((whole[i] - start) / 4, scaled[i] - start, 1e-7, kind + " weight " + i);
            }
            assertArrayEquals(wholeSlots, scaledSlots, kind + ": the optimizer's state sees the whole gradient");
        }
        Optimizer counting = new DenseOptimizerConfig(DenseOptimizerKind.ADAM, 0.01, 0.1, true, true).create();
        float[] counts = {0f};
        counting.apply(counts, counting.initialSlots(1), new float[] {1f}, 0, 7, 0.25f);
        assertEquals(7f, counts[0], "the count oracle counts whole examples");
    }

    @Test
    void aDenseStepShrinksWhenStalerThanUsual() {
        DenseOptimizerConfig config = new DenseOptimizerConfig(DenseOptimizerKind.ADAM, 0.01, 0.1, false, true);
        assertEquals(1f, config.stepScale(3, 3), "as stale as usual: a whole step");
        assertEquals(1f, config.stepScale(1, 3), "fresher than usual: no more than a whole step");
        assertEquals(4f / 12, config.stepScale(11, 3), 1e-6, "11 batches missed where 3 are usual");
        assertEquals(1f / 9, config.stepScale(8, 0), 1e-6, "8 missed where none are usual: 1 / (1 + 8)");
        DenseOptimizerConfig off = new DenseOptimizerConfig(DenseOptimizerKind.ADAM, 0.01, 0.1, false, false);
        assertEquals(1f, off.stepScale(11, 3), "staleness-aware steps switched off");
    }

    @Test
    void countAddsOccurrencesAndIgnoresGradients() {
        Optimizer o = config(OptimizerKind.COUNT).create();
        float[] w = {0f, 0.3f};
        o.apply(w, o.initialSlots(2), new float[] {100f, 100f}, 0, 3);
        o.apply(w, o.initialSlots(2), new float[] {-7f, 1f}, 0, 2);
        assertEquals(5f, w[0]);
        assertEquals(0.3f, w[1]);
    }

    @Test
    void aConfigurationNamesOptimizersInLowerCaseWithHyphens() {
        Configuration conf = Configuration.fromMap(Map.of(PsOptions.OPTIMIZER.key(), "Rowwise-Adagrad"));
        assertEquals(OptimizerKind.ROWWISE_ADAGRAD, conf.get(PsOptions.OPTIMIZER));
        conf.set(PsOptions.OPTIMIZER, OptimizerKind.FTRL);
        assertEquals("ftrl", conf.toMap().get(PsOptions.OPTIMIZER.key()));
        assertThrows(IllegalArgumentException.class,
                () -> Configuration.fromMap(Map.of(PsOptions.OPTIMIZER.key(), "adamw")).get(PsOptions.OPTIMIZER));
    }
}
