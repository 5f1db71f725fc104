package io.streamtrain.train.reference;

import io.streamtrain.model.BatchModel;
import io.streamtrain.model.Examples;
import io.streamtrain.model.Model;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.PerExampleModel;
import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.ps.row.DenseParameters;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.train.TrainingOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/**
 * The same model, optimizers and mini-batches as the job, in one thread with a heap table and no
 * staleness: the reference the distributed trainer is compared with, and the compute limit the
 * benchmark reports. A deep model's dense parameters are kept as the PS keeps them, in chunks
 * ({@link DenseChunks}), each updated once per batch with the batch's example count.
 */
public final class SequentialTrainer {
    private final BatchModel model;
    private final Optimizer optimizer;
    private final RowInitializer initializer;
    private final Optimizer denseOptimizer;
    private final EmbeddingRow[] chunks;
    private final Map<Long, EmbeddingRow> rows = new HashMap<>();
    private final int width;
    /** The dense parameters as one array, until the next batch changes them (predict reads them per example). */
    private float[] denseSnapshot;

    /** A model without dense parameters (lr, fm). */
    public SequentialTrainer(Model model, Optimizer optimizer, RowInitializer initializer) {
        this(new PerExampleModel(model), optimizer, initializer, DenseParameters.NONE);
    }

    public SequentialTrainer(BatchModel model, Optimizer optimizer, RowInitializer initializer, DenseParameters dense) {
        this.model = model;
        this.optimizer = optimizer;
        this.initializer = initializer;
        this.width = model.width();
        this.chunks = new EmbeddingRow[DenseChunks.count(model.denseLayout().size())];
        this.denseOptimizer = chunks.length == 0 ? null : dense.optimizer().create();
        for (int c = 0; c < chunks.length; c++) {
            chunks[c] = dense.newRow(c, denseOptimizer);
        }
    }

    /** The trainer of the model, optimizers and initial values a job under {@code conf} would train. */
    public static SequentialTrainer of(Configuration conf) {
        ModelShape shape = TrainingOptions.shape(conf);
        return new SequentialTrainer(TrainingOptions.batchModel(conf), OptimizerConfig.from(conf).create(), RowInitializer.from(conf, shape.kind()),
                DenseParameters.from(conf, shape));
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
        int[] occurrences = new int[keyAt.length];
        int[] starts = new int[batch.size() + 1];
        int[] slots = new int[features];
        int[] fields = new int[features];
        float[] values = new float[features];
        float[] labels = new float[batch.size()];
        occurrences[0] = batch.size();
        int at = 0;
        for (int e = 0; e < parsed.length; e++) {
            long[] keys = parsed[e].keys();
            starts[e] = at;
            labels[e] = batch.get(e).getLabel();
            for (int i = 0; i < keys.length; i++, at++) {
                slots[at] = offsetOf.get(keys[i]);
                fields[at] = FeatureKey.field(keys[i]);
                values[at] = parsed[e].values()[i];
                occurrences[slots[at] / width]++;
            }
        }
        starts[parsed.length] = at;
        float[] dense = denseParameters();
        float[] grad = new float[table.length];
        float[] denseGrad = new float[dense.length];
        model.gradients(new Examples(batch.size(), starts, slots, fields, values, 0), labels, table, dense,
                new double[batch.size()], grad, denseGrad);
        for (int r = 0; r < keyAt.length; r++) {
            EmbeddingRow row = rows.computeIfAbsent(keyAt[r], k -> initializer.newRow(k, optimizer));
            optimizer.apply(row.weights, row.slots, grad, r * width, occurrences[r]);
            row.count += occurrences[r];
        }
        for (int c = 0; c < chunks.length; c++) {
            denseOptimizer.apply(chunks[c].weights, chunks[c].slots, denseGrad, c * DenseChunks.WIDTH, batch.size());
            chunks[c].count += batch.size();
        }
        denseSnapshot = null;
    }

    public double predict(Example example) {
        ExampleRows ex = ExampleRows.of(example.getFeatures());
        long[] keys = ex.keys();
        float[] table = new float[(keys.length + 1) * width];
        int[] slots = new int[keys.length];
        int[] fields = new int[keys.length];
        EmbeddingRow bias = rows.get(FeatureKey.BIAS);
        if (bias != null) {
            System.arraycopy(bias.weights, 0, table, 0, width);
        }
        for (int i = 0; i < keys.length; i++) {
            slots[i] = (i + 1) * width;
            fields[i] = FeatureKey.field(keys[i]);
            EmbeddingRow row = rows.get(keys[i]);
            if (row != null) {
                System.arraycopy(row.weights, 0, table, slots[i], width);
            }
        }
        double[] logit = new double[1];
        model.logits(new Examples(1, new int[] {0, keys.length}, slots, fields, ex.values(), 0), table, denseParameters(), logit);
        return Model.sigmoid(logit[0]);
    }

    /** The dense parameters, chunk after chunk (the last one's padding included). */
    private float[] denseParameters() {
        if (denseSnapshot == null) {
            denseSnapshot = new float[chunks.length * DenseChunks.WIDTH];
            for (int c = 0; c < chunks.length; c++) {
                System.arraycopy(chunks[c].weights, 0, denseSnapshot, c * DenseChunks.WIDTH, DenseChunks.WIDTH);
            }
        }
        return denseSnapshot;
    }

    public int rows() {
        return rows.size();
    }
}
