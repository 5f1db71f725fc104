package io.streamtrain.train.reference;

import io.streamtrain.model.Model;
import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.FeatureKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The same model, optimizer and mini-batches as the job, in one thread with a heap table and no
 * staleness: the reference the distributed trainer is compared with, and the compute limit the
 * benchmark reports.
 */
public final class SequentialTrainer {
    private final Model model;
    private final Optimizer optimizer;
    private final RowInitializer initializer;
    private final Map<Long, EmbeddingRow> rows = new HashMap<>();
    private final int width;

    public SequentialTrainer(Model model, Optimizer optimizer, RowInitializer initializer) {
        this.model = model;
        this.optimizer = optimizer;
        this.initializer = initializer;
        this.width = model.width();
    }

    /** Trains on {@code examples} in order, {@code batchSize} at a time. */
    public void train(List<Example> examples, int batchSize) {
        for (int from = 0; from < examples.size(); from += batchSize) {
            trainBatch(examples.subList(from, Math.min(examples.size(), from + batchSize)));
        }
    }

    private void trainBatch(List<Example> batch) {
        Map<Long, Integer> offsetOf = new HashMap<>();
        offsetOf.put(FeatureKey.BIAS, 0);
        ExampleRows[] parsed = new ExampleRows[batch.size()];
        int features = 0;
        for (int e = 0; e < parsed.length; e++) {
            parsed[e] = ExampleRows.of(batch.get(e).getFeatures());
            features += parsed[e].keys().length;
            for (long k : parsed[e].keys()) {
                offsetOf.computeIfAbsent(k, x -> offsetOf.size() * width);
            }
        }
        long[] keyAt = new long[offsetOf.size()];
        float[] table = new float[offsetOf.size() * width];
        for (Map.Entry<Long, Integer> e : offsetOf.entrySet()) {
            keyAt[e.getValue() / width] = e.getKey();
            EmbeddingRow row = rows.get(e.getKey());
            float[] w = row != null ? row.weights : initializer.initialWeights(e.getKey());
            System.arraycopy(w, 0, table, e.getValue(), width);
        }
        float[] grad = new float[table.length];
        int[] occurrences = new int[keyAt.length];
        int[] slots = new int[features];
        float[] values = new float[features];
        double[] scratch = new double[width];
        occurrences[0] = batch.size();
        for (int e = 0; e < parsed.length; e++) {
            long[] keys = parsed[e].keys();
            for (int i = 0; i < keys.length; i++) {
                slots[i] = offsetOf.get(keys[i]);
                values[i] = parsed[e].values()[i];
                occurrences[slots[i] / width]++;
            }
            double p = Model.sigmoid(model.logit(table, 0, slots, values, 0, keys.length, scratch));
            model.backward(table, 0, slots, values, 0, keys.length, p - batch.get(e).getLabel(), scratch, grad);
        }
        for (int r = 0; r < keyAt.length; r++) {
            EmbeddingRow row = rows.computeIfAbsent(keyAt[r], k -> initializer.newRow(k, optimizer));
            optimizer.apply(row.weights, row.slots, grad, r * width, occurrences[r]);
            row.count += occurrences[r];
        }
    }

    public double predict(Example example) {
        ExampleRows ex = ExampleRows.of(example.getFeatures());
        long[] keys = ex.keys();
        float[] table = new float[(keys.length + 1) * width];
        int[] slots = new int[keys.length];
        EmbeddingRow bias = rows.get(FeatureKey.BIAS);
        if (bias != null) {
            System.arraycopy(bias.weights, 0, table, 0, width);
        }
        for (int i = 0; i < keys.length; i++) {
            slots[i] = (i + 1) * width;
            EmbeddingRow row = rows.get(keys[i]);
            if (row != null) {
                System.arraycopy(row.weights, 0, table, slots[i], width);
            }
        }
        return Model.sigmoid(model.logit(table, 0, slots, ex.values(), 0, keys.length, new double[width]));
    }

    public int rows() {
        return rows.size();
    }
}
