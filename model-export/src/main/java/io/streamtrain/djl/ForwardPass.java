package io.streamtrain.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.LambdaBlock;
import io.streamtrain.model.ModelKind;

/**
 * The model's forward pass on NDArrays: the same formulas as ps-statefun's
 * {@code LogisticRegression} and {@code FactorizationMachine}, in float64.
 * Input: {@code bias} (the bias row's linear weight, shape [1]), {@code rows} (the example's rows,
 * [n, width]: linear weight, then the embedding) and {@code values} ([n]). Output: P(label = 1), [1].
 */
final class ForwardPass {
    private ForwardPass() {}

    static Block of(ModelKind kind) {
        return new LambdaBlock(in -> new NDList(Activation.sigmoid(logit(kind, in.get(0), in.get(1), in.get(2)))), "streamtrain-" + kind);
    }

    private static NDArray logit(ModelKind kind, NDArray bias, NDArray rows, NDArray values) {
        // logit = b + Σ w_i x_i
        NDArray z = bias.add(rows.get(":, 0").mul(values).sum().reshape(1));
        if (kind == ModelKind.FM) {
            // + ½ Σ_f [(Σ_i v_if x_i)² − Σ_i v_if² x_i²]
            NDArray vx = rows.get(":, 1:").mul(values.reshape(-1, 1));
            NDArray interactions = vx.sum(new int[] {0}).square().sum().sub(vx.square().sum()).mul(0.5);
            z = z.add(interactions.reshape(1));
        }
        return z;
    }
}
