package io.streamtrain.model;

import io.streamtrain.model.deep.DenseLayout;

/** A {@link Model} without dense parameters (lr, fm) as a {@link BatchModel}: one example at a time. */
public final class PerExampleModel implements BatchModel {
    private static final long serialVersionUID = 1L;
    private final Model model;
    private transient double[] scratch;

    public PerExampleModel(Model model) {
        this.model = model;
    }

    @Override
    public int width() {
        return model.width();
    }

    @Override
    public DenseLayout denseLayout() {
        return DenseLayout.NONE;
    }

    @Override
    public void logits(Examples ex, float[] table, float[] dense, double[] logits) {
        double[] s = scratch();
        for (int e = 0; e < ex.size(); e++) {
            logits[e] = model.logit(table, ex.biasSlot(), ex.slots(), ex.values(), ex.starts()[e], ex.starts()[e + 1], s);
        }
    }

    @Override
    public void gradients(Examples ex, float[] labels, float[] table, float[] dense,
                          double[] predictions, float[] tableGrad, float[] denseGrad) {
        double[] s = scratch();
        for (int e = 0; e < ex.size(); e++) {
            int from = ex.starts()[e];
            int to = ex.starts()[e + 1];
            double p = Model.sigmoid(model.logit(table, ex.biasSlot(), ex.slots(), ex.values(), from, to, s));
            predictions[e] = p;
            model.backward(table, ex.biasSlot(), ex.slots(), ex.values(), from, to, p - labels[e], s, tableGrad);
        }
    }

    private double[] scratch() {
        if (scratch == null) {
            scratch = new double[model.width()];
        }
        return scratch;
    }
}
