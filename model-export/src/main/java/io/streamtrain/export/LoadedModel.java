package io.streamtrain.export;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.model.Model;
import io.streamtrain.model.BatchModel;
import io.streamtrain.model.Examples;
import io.streamtrain.model.ModelShape;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A model scoring examples with the trainer's own math ({@link BatchModel}: the same code the
 * worker trains with, the dense tower included), over the rows of a checkpoint (in memory) or of a
 * bundle (looked up in its RocksDB store). Never-seen (or not yet admitted, or expired) features
 * contribute zero, as in training. Thread-safe: each thread scores with its own model instance
 * (a batch model keeps the activations of what it computes).
 */
public final class LoadedModel {
    private final ModelShape shape;
    private final ThreadLocal<BatchModel> models;
    private final LongFunction<float[]> rows;
    private final Supplier<float[]> bias;
    private final Supplier<float[]> dense;
    private final long size;

    private LoadedModel(ModelShape shape, LongFunction<float[]> rows, Supplier<float[]> bias, Supplier<float[]> dense, long size) {
        this.shape = shape;
        this.models = ThreadLocal.withInitial(shape::batchModel);
        this.rows = rows;
        this.bias = bias;
        this.dense = dense;
        this.size = size;
    }

    /** Loads the newest checkpoint of a train --checkpoint-dir. */
    public static LoadedModel load(Path checkpointDir) throws Exception {
        return load(LatestCheckpoint.in(checkpointDir), ModelInfo.read(checkpointDir));
    }

    public static LoadedModel load(Path checkpoint, ModelInfo info) throws Exception {
        ModelShape shape = info.shape();
        Map<Long, float[]> rows = new HashMap<>();
        DenseBlocks tower = new DenseBlocks(shape.denseLayout());
        CheckpointRows.read(checkpoint, info, r -> {
            if (!tower.take(r)) {
                rows.put(FeatureKey.of(r.field(), r.id()), r.vector());
            }
        });
        int size = rows.size();
        float[] b = rows.remove(FeatureKey.BIAS);
        float[] bias = b != null ? b : new float[shape.rowWidth()];
        float[] dense = tower.values();
        return new LoadedModel(shape, rows::get, () -> bias, () -> dense, size);
    }

    /** Scores from the bundle's store; with a followed store, every score sees the latest applied rows and tower. */
    public static LoadedModel of(Bundle bundle) {
        return new LoadedModel(bundle.card().shape(), bundle::rowOrNull, bundle::bias, bundle::dense,
                bundle.card().contents().rows() + 1);
    }

    /** Rows in the table, the bias row included (for a bundle: as exported, a deep model's dense chunk rows too). */
    public long rows() {
        return size;
    }

    /** P(label = 1) for an example, through the same feature-to-row mapping as training. */
    public double predict(Example example) {
        ExampleRows rows = ExampleRows.of(example.getFeatures());
        return predict(rows.keys(), rows.values());
    }

    /** P(label = 1) for an example given as (distinct) row keys and values. */
    public double predict(long[] keys, float[] values) {
        int width = shape.rowWidth();
        float[] table = new float[(keys.length + 1) * width];
        int[] slots = new int[keys.length];
        int[] fields = new int[keys.length];
        System.arraycopy(bias.get(), 0, table, 0, width);
        for (int i = 0; i < keys.length; i++) {
            int offset = (i + 1) * width;
            float[] row = rows.apply(keys[i]);
            if (row != null) {
                System.arraycopy(row, 0, table, offset, width);
            }
            slots[i] = offset;
            fields[i] = FeatureKey.field(keys[i]);
        }
        double[] logit = new double[1];
        models.get().logits(new Examples(1, new int[] {0, keys.length}, slots, fields, values, 0), table, dense.get(), logit);
        return Model.sigmoid(logit[0]);
    }
}
