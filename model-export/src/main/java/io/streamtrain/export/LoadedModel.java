package io.streamtrain.export;

import io.streamtrain.model.Model;
import io.streamtrain.model.ModelKind;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A checkpoint's model in memory, scoring examples with the trainer's own {@link Model} math.
 * Never-seen (or not yet admitted, or expired) features contribute zero, as in training.
 */
public final class LoadedModel {
    private final Model model;
    private final int width;
    private final Map<Long, float[]> rows;
    private final float[] bias;

    private LoadedModel(ModelInfo info, Map<Long, float[]> rows) {
        this.model = ModelKind.parse(info.model()).create(info.dim());
        this.width = model.width();
        this.rows = rows;
        float[] b = rows.get(FeatureKey.BIAS);
        this.bias = b != null ? b : new float[width];
    }

    /** Loads the newest checkpoint of a train --checkpoint-dir. */
    public static LoadedModel load(Path checkpointDir) throws Exception {
        return load(LatestCheckpoint.in(checkpointDir), ModelInfo.read(checkpointDir));
    }

    public static LoadedModel load(Path checkpoint, ModelInfo info) throws Exception {
        Map<Long, float[]> rows = new HashMap<>();
        CheckpointRows.read(checkpoint, info, r -> rows.put(FeatureKey.of(r.field(), r.id()), r.vector()));
        return new LoadedModel(info, rows);
    }

    public int rows() {
        return rows.size();
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
        System.arraycopy(bias, 0, table, 0, width);
        for (int i = 0; i < keys.length; i++) {
            int offset = (i + 1) * width;
            float[] row = rows.get(keys[i]);
            if (row != null) {
                System.arraycopy(row, 0, table, offset, width);
            }
            slots[i] = offset;
        }
        double[] scratch = new double[width];
        return Model.sigmoid(model.logit(table, 0, slots, values, 0, keys.length, scratch));
    }
}
