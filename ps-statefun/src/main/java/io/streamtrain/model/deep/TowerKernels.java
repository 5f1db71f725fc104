package io.streamtrain.model.deep;

import io.streamtrain.model.ModelShape;
import java.io.Serializable;

/**
 * Makes a deep model's {@link TowerKernel} where the model runs: a model travels serialised to its
 * task, while a kernel may hold native memory, so the model makes its kernel on first use.
 */
@FunctionalInterface
public interface TowerKernels extends Serializable {
    /** The pure-Java kernel. */
    TowerKernels JAVA = DenseTower::new;

    TowerKernel create(ModelShape shape);
}
