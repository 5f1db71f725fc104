package io.streamtrain.model.deep;

import io.streamtrain.model.ModelShape;
import io.streamtrain.model.ModelKind;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The dense parameters of a deep model as named blocks in one flat array, in this order:
 * {@code mlp.<l>.weight} (fan-in × width) and {@code mlp.<l>.bias} for each hidden layer, then for
 * DCN {@code cross.<l>.weight} (D × D) and {@code cross.<l>.bias} (D) for each cross layer, then
 * {@code out.weight}: the output layer over the last cross layer's output (DCN only, D entries)
 * followed by the last hidden layer (or the input when there is none). D = fields × dim. The
 * output has no bias of its own: the model's bias row is the intercept.
 */
public final class DenseLayout implements Serializable {
    private static final long serialVersionUID = 1L;
    /** No dense parameters (lr, fm). */
    public static final DenseLayout NONE = new DenseLayout(List.of());

    private final List<DenseBlock> blocks;
    private final int size;

    private DenseLayout(List<DenseBlock> blocks) {
        this.blocks = List.copyOf(blocks);
        this.size = blocks.isEmpty() ? 0 : blocks.get(blocks.size() - 1).offset() + blocks.get(blocks.size() - 1).size();
    }

    public static DenseLayout of(ModelShape shape) {
        List<DenseBlock> blocks = new ArrayList<>();
        int d = shape.inputWidth();
        int in = d;
        int at = 0;
        for (int l = 0; l < shape.hidden().size(); l++) {
            int out = shape.hidden().get(l);
            blocks.add(new DenseBlock("mlp." + l + ".weight", in, out, at, false));
            at += in * out;
            blocks.add(new DenseBlock("mlp." + l + ".bias", 1, out, at, true));
            at += out;
            in = out;
        }
        for (int l = 0; l < shape.crossLayers(); l++) {
            blocks.add(new DenseBlock("cross." + l + ".weight", d, d, at, false));
            at += d * d;
            blocks.add(new DenseBlock("cross." + l + ".bias", 1, d, at, true));
            at += d;
        }
        int features = (shape.kind() == ModelKind.DCN ? d : 0) + in;
        blocks.add(new DenseBlock("out.weight", features, 1, at, false));
        return new DenseLayout(blocks);
    }

    public List<DenseBlock> blocks() {
        return blocks;
    }

    /** The block called {@code name}. */
    public DenseBlock block(String name) {
        for (DenseBlock b : blocks) {
            if (b.name().equals(name)) {
                return b;
            }
        }
        throw new IllegalArgumentException("no dense block '" + name + "' in " + names());
    }

    /** The block holding parameter {@code index}. */
    public DenseBlock blockAt(int index) {
        for (DenseBlock b : blocks) {
            if (index < b.offset() + b.size()) {
                return b;
            }
        }
        throw new IndexOutOfBoundsException("dense parameter " + index + " of " + size);
    }

    /** Number of dense parameters. */
    public int size() {
        return size;
    }

    public List<String> names() {
        return blocks.stream().map(DenseBlock::name).toList();
    }

    /**
     * The initial values of parameters {@code [from, from + to.length)} (positions past the
     * end stay 0): each a function of {@code seed} and its index alone, so any slice, on any
     * subtask, after any restore, starts the same.
     */
    public void initialValues(long seed, int from, float[] to) {
        for (int i = 0; i < to.length && from + i < size; i++) {
            int index = from + i;
            double u = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index).nextDouble();
            to[i] = blockAt(index).initialValue(u);
        }
    }
}
