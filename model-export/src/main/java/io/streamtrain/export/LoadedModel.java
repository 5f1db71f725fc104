package io.streamtrain.export;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.model.Model;
import io.streamtrain.model.ModelKind;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A model scoring examples with the trainer's own {@link Model} math, over the rows of a checkpoint
 * (in memory) or of a bundle (looked up in its RocksDB store). Never-seen (or not yet admitted, or
 * expired) features contribute zero, as in training. Thread-safe.
 */
public final class LoadedModel {
    private final Model model;
    private final int width;
    private final LongFunction<float[]> rows;
    private final Supplier<float[]> bias;
    private final long size;

    private LoadedModel(Model model, LongFunction<float[]> rows, Supplier<float[]> bias, long size) {
        this.model = model;
        this.width = model.width();
        this.rows = rows;
        this.bias = bias;
        this.size = size;
    }

    /** Loads the newest checkpoint of a train --checkpoint-dir. */
    public static LoadedModel load(Path checkpointDir) throws Exception {
        return load(LatestCheckpoint.in(checkpointDir), ModelInfo.read(checkpointDir));
    }

    public static LoadedModel load(Path checkpoint, ModelInfo info) throws Exception {
        Map<Long, float[]> rows = new HashMap<>();
        CheckpointRows.read(checkpoint, info, r -> rows.put(FeatureKey.of(r.field(), r.id()), r.vector()));
        Model model = ModelKind.parse(info.model()).create(info.dim());
        int size = rows.size();
        float[] b = rows.remove(FeatureKey.BIAS);
        float[] bias = b != null ? b : new float[model.width()];
        return new LoadedModel(model, rows::get, () -> bias, size);
    }

    /** Scores from the bundle's store; with a followed store, every score sees the latest applied rows. */
    public static LoadedModel of(Bundle bundle) {
        Model model = ModelKind.parse(bundle.card().modelType()).create(bundle.card().dim());
        return new LoadedModel(model, bundle::rowOrNull, bundle::bias, bundle.card().contents().rows() + 1);
    }

    /** Rows in the table, the bias row included (for a bundle: as exported). */
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
        float[] table = new float[(keys.length + 1) * width];
        int[] slots = new int[keys.length];
        System.arraycopy(bias.get(), 0, table, 0, width);
        for (int i = 0; i < keys.length; i++) {
            int offset = (i + 1) * width;
            float[] row = rows.apply(keys[i]);
            if (row != null) {
                System.arraycopy(row, 0, table, offset, width);
            }
            slots[i] = offset;
        }
        double[] scratch = new double[width];
        return Model.sigmoid(model.logit(table, 0, slots, values, 0, keys.length, scratch));
    }
}
