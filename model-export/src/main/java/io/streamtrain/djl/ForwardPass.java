package io.streamtrain.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.LambdaBlock;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DenseBlock;
import io.streamtrain.model.deep.DenseLayout;

/**
 * The model's forward pass on NDArrays, in float64: the same formulas as ps-statefun's
 * {@code LogisticRegression}, {@code FactorizationMachine} and, for the deep kinds,
 * {@code DeepModel} with its {@code DenseTower} (those are the reference; {@code BundleParityTest}
 * holds the two within 1e-5).
 * Input: {@code bias} (the bias row's linear weight, shape [1]), {@code rows} (the example's rows,
 * [n, width]: linear weight, then the embedding), {@code values} ([n]) and, for the deep kinds,
 * {@code pool} ([fields, n]: the value of occurrence i in the row of its field, which sums each
 * field's embeddings into the tower's input) and {@code dense} (the flat dense parameters).
 * Output: P(label = 1), [1].
 */
final class ForwardPass {
    private ForwardPass() {}

    static Block of(ModelShape shape) {
        return new LambdaBlock(in -> new NDList(Activation.sigmoid(logit(shape, in))), "streamtrain-" + shape.kind());
    }

    private static NDArray logit(ModelShape shape, NDList in) {
        NDArray bias = in.get(0);
        NDArray rows = in.get(1);
        NDArray values = in.get(2);
        // logit = b + Σ w_i x_i
        NDArray z = bias.add(rows.get(":, 0").mul(values).sum().reshape(1));
        if (shape.kind() == ModelKind.FM || shape.kind() == ModelKind.DEEPFM) {
            // + ½ Σ_f [(Σ_i v_if x_i)² − Σ_i v_if² x_i²]
            NDArray vx = rows.get(":, 1:").mul(values.reshape(-1, 1));
            NDArray interactions = vx.sum(new int[] {0}).square().sum().sub(vx.square().sum()).mul(0.5);
            z = z.add(interactions.reshape(1));
        }
        if (shape.kind().isDeep()) {
            z = z.add(tower(shape, in.get(3).matMul(rows.get(":, 1:")).reshape(1, shape.inputWidth()), in.get(4)));
        }
        return z;
    }

    /** The tower's logit over x0 ([1, D]): the MLP with ReLU, DCN-v2's cross layers x0 ⊙ (x·W + b) + x beside it. */
    private static NDArray tower(ModelShape shape, NDArray x0, NDArray p) {
        DenseLayout layout = shape.denseLayout();
        int d = shape.inputWidth();
        NDArray h = x0;
        for (int l = 0; l < shape.hidden().size(); l++) {
            h = Activation.relu(h.matMul(matrix(p, layout.block("mlp." + l + ".weight"))).add(matrix(p, layout.block("mlp." + l + ".bias"))));
        }
        NDArray x = x0;
        for (int l = 0; l < shape.crossLayers(); l++) {
            NDArray u = x.matMul(matrix(p, layout.block("cross." + l + ".weight"))).add(matrix(p, layout.block("cross." + l + ".bias")));
            x = x0.mul(u).add(x);
        }
        // out.weight: DCN's D entries for the last cross output, then the last hidden layer's (or the input's)
        int out = layout.block("out.weight").offset();
        int crossOut = shape.kind() == ModelKind.DCN ? d : 0;
        long in = h.getShape().get(1);
        NDArray z = h.matMul(p.get(new NDIndex("{}:{}", out + crossOut, out + crossOut + in)).reshape(in, 1));
        if (crossOut > 0) {
            z = z.add(x.matMul(p.get(new NDIndex("{}:{}", out, out + d)).reshape(d, 1)));
        }
        return z.reshape(1);
    }

    private static NDArray matrix(NDArray p, DenseBlock b) {
        return p.get(new NDIndex("{}:{}", b.offset(), b.offset() + b.size())).reshape(b.rows(), b.cols());
    }
}
