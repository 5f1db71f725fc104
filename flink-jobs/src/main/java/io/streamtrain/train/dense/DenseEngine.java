package io.streamtrain.train.dense;

import io.streamtrain.model.deep.TowerKernels;
import java.util.Locale;

/** What runs a deep model's dense tower on the worker ({@code streamtrain.train.dense-engine}). */
public enum DenseEngine {
    /** PyTorch through DJL ({@link TorchTower}): 11-16x the Java kernel on a 256-128-64 tower. */
    PYTORCH(shape -> TorchTower.open(shape)), // a lambda, so that DJL's classes load only when a tower is made
    /** The pure-Java kernel: the parity reference; needs no natives; the default for now (docs/benchmarks.md). */
    JAVA(TowerKernels.JAVA);

    private final TowerKernels kernels;

    DenseEngine(TowerKernels kernels) {
        this.kernels = kernels;
    }

    public TowerKernels kernels() {
        return kernels;
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
