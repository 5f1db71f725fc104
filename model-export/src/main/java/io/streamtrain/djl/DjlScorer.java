package io.streamtrain.djl;

import ai.djl.Model;
import ai.djl.inference.Predictor;
import ai.djl.translate.TranslateException;
import io.streamtrain.bundle.Bundle;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;

/**
 * Scores examples with DJL's PyTorch engine from a bundle: {@link BundleTranslator} looks the rows
 * up, {@link ForwardPass} is the model. The PyTorch natives come from the {@code pytorch-native-cpu}
 * jar, never from the network ({@code ai.djl.offline} is forced on); DJL unpacks them into its cache
 * ({@code DJL_CACHE_DIR}, default {@code ~/.djl.ai}). Engine start-up takes seconds: open one per process.
 * Calls are serialised (a DJL predictor is not thread-safe).
 */
public final class DjlScorer implements AutoCloseable {
    private final Model model;
    private final Predictor<ExampleRows, Double> predictor;

    private DjlScorer(Model model, Predictor<ExampleRows, Double> predictor) {
        this.model = model;
        this.predictor = predictor;
    }

    public static DjlScorer open(Bundle bundle) {
        System.setProperty("ai.djl.offline", "true"); // DJL's own switch: never download natives or models
        Model model = Model.newInstance("streamtrain-" + bundle.card().name(), "PyTorch");
        model.setBlock(ForwardPass.of(bundle.card().shape()));
        return new DjlScorer(model, model.newPredictor(new BundleTranslator(bundle)));
    }

    /** P(label = 1) for an example, through the same feature-to-row mapping as training. */
    public double predict(Example example) {
        return predict(ExampleRows.of(example.getFeatures()));
    }

    public synchronized double predict(ExampleRows rows) {
        try {
            return predictor.predict(rows);
        } catch (TranslateException e) {
            throw new IllegalStateException("DJL scoring failed: " + e.getMessage(), e);
        }
    }

    /** The engine DJL runs on, with its version (e.g. "PyTorch 2.7.1"). */
    public String engine() {
        return model.getNDManager().getEngine().getEngineName() + " " + model.getNDManager().getEngine().getVersion();
    }

    @Override
    public void close() {
        predictor.close();
        model.close();
    }
}
