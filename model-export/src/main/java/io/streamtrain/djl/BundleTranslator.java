package io.streamtrain.djl;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.translate.Batchifier;
import ai.djl.translate.Translator;
import ai.djl.translate.TranslatorContext;
import io.streamtrain.bundle.Bundle;
import io.streamtrain.model.ModelShape;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.FeatureKey;

/**
 * An example's rows (its features through the shared feature mapping, {@link ExampleRows}) to the
 * forward pass's inputs: the bias, one embedding lookup per feature in the bundle — the zero vector
 * for a feature without a row, the documented default — and the feature values; the output back
 * to a probability. For the deep kinds also the pooling matrix of the example's occurrences by field
 * and the bundle's dense tower as it is now (a followed store's latest).
 */
final class BundleTranslator implements Translator<ExampleRows, Double> {
    private final Bundle bundle;
    private final ModelShape shape;

    BundleTranslator(Bundle bundle) {
        this.bundle = bundle;
        this.shape = bundle.card().shape();
    }

    @Override
    public NDList processInput(TranslatorContext ctx, ExampleRows example) {
        int width = bundle.width();
        long[] keys = example.keys();
        double[] rows = new double[keys.length * width];
        double[] values = new double[keys.length];
        for (int i = 0; i < keys.length; i++) {
            float[] row = bundle.rowOrNull(keys[i]);
            if (row != null) {
                for (int j = 0; j < width; j++) {
                    rows[i * width + j] = row[j];
                }
            }
            values[i] = example.values()[i];
        }
        NDManager m = ctx.getNDManager();
        NDList inputs = new NDList(
                m.create(new double[] {bundle.bias()[0]}, new Shape(1)),
                m.create(rows, new Shape(keys.length, width)),
                m.create(values, new Shape(keys.length)));
        if (shape.kind().isDeep()) {
            double[] pool = new double[shape.fields() * keys.length];
            for (int i = 0; i < keys.length; i++) {
                int field = FeatureKey.field(keys[i]);
                if (field < shape.fields()) { // other fields reach the wide part only
                    pool[field * keys.length + i] = values[i];
                }
            }
            float[] dense = bundle.dense();
            double[] p = new double[dense.length];
            for (int i = 0; i < dense.length; i++) {
                p[i] = dense[i];
            }
            inputs.add(m.create(pool, new Shape(shape.fields(), keys.length)));
            inputs.add(m.create(p, new Shape(dense.length)));
        }
        return inputs;
    }

    @Override
    public Double processOutput(TranslatorContext ctx, NDList list) {
        return list.singletonOrThrow().toDoubleArray()[0];
    }

    @Override
    public Batchifier getBatchifier() {
        return null; // one example per call: examples have different numbers of features
    }
}
