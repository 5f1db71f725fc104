package io.streamtrain.cli;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DenseTower;
import io.streamtrain.model.deep.TowerKernel;
import io.streamtrain.train.dense.TorchTower;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench dense}: the compute of a deep model's dense tower alone, one thread, no
 * Flink, no Kafka: examples/s of its forward and backward pass over random inputs, per model,
 * engine (PyTorch through DJL, which the job trains with, or the pure-Java kernel) and batch size.
 */
@Command(name = "dense", mixinStandardHelpOptions = true,
        description = "Examples/s of a deep model's dense tower, forward and backward, alone (one thread, random inputs), per model, "
                + "engine and batch size. Prints a markdown table.")
public final class DenseBenchCommand implements Callable<Integer> {
    @Option(names = "--models", split = ",", defaultValue = "deepfm,dcn", converter = FlinkEnumConverter.Models.class,
            description = "Deep models (default: ${DEFAULT-VALUE}).")
    List<ModelKind> models;

    @Option(names = "--batch-sizes", split = ",", defaultValue = "256,1024", description = "Batch sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> batchSizes;

    @Option(names = "--fields", defaultValue = "39", description = "Fields, one feature each (default: ${DEFAULT-VALUE}).")
    int fields;

    @Option(names = "--dim", defaultValue = "16", description = "Embedding dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--hidden", split = ",", defaultValue = "256,128,64", description = "MLP widths (default: ${DEFAULT-VALUE}).")
    List<Integer> hidden;

    @Option(names = "--cross-layers", defaultValue = "2", description = "dcn's cross layers (default: ${DEFAULT-VALUE}).")
    int crossLayers;

    @Option(names = "--seconds", defaultValue = "10", description = "Measured seconds per row, after as long a warm-up (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--engines", split = ",", defaultValue = "java,djl",
            description = "java: the pure-Java kernel (the parity reference); djl: PyTorch through DJL with its autograd, one "
                    + "intra-op thread, the kernel the job trains with (default: ${DEFAULT-VALUE}).")
    List<String> engines;

    @Override
    public Integer call() {
        System.out.printf(Locale.ROOT, "bench dense: the tower's forward and backward pass, %d fields, dim %d, hidden %s, %d s per row "
                + "after a warm-up as long, one thread%n", fields, dim, hidden, seconds);
        System.out.println("| model | engine | batch | dense parameters | examples/s | ms per batch |");
        System.out.println("|---|---|---|---|---|---|");
        for (ModelKind kind : models) {
            ModelShape shape = new ModelShape(kind, dim, fields, hidden, kind == ModelKind.DCN ? crossLayers : 0);
            for (String engine : engines) {
                try (TowerKernel kernel = kernel(engine, shape)) {
                    for (int batch : batchSizes) {
                        double rate = measure(shape, batch, kernel);
                        System.out.printf(Locale.ROOT, "| %s | %s | %d | %d | %.0f | %.1f |%n", kind, engine, batch,
                                shape.denseLayout().size(), rate, 1e3 * batch / rate);
                    }
                }
            }
        }
        return 0;
    }

    private static TowerKernel kernel(String engine, ModelShape shape) {
        return switch (engine) {
            case "java" -> new DenseTower(shape);
            case "djl" -> TorchTower.open(shape);
            default -> throw new IllegalArgumentException("--engines: '" + engine + "' is not java or djl");
        };
    }

    /** Examples/s of {@code kernel} on batches of {@code n} random inputs, after a warm-up as long as the measurement. */
    private double measure(ModelShape shape, int n, TowerKernel kernel) {
        Random random = new Random(1);
        float[] p = new float[shape.denseLayout().size()];
        shape.denseLayout().initialValues(7, 0, p);
        float[] x0 = new float[n * shape.inputWidth()];
        for (int i = 0; i < x0.length; i++) {
            x0[i] = (float) random.nextGaussian();
        }
        double[] dLogits = new double[n];
        for (int e = 0; e < n; e++) {
            dLogits[e] = random.nextDouble() - 0.5;
        }
        double[] logits = new double[n];
        float[] g = new float[p.length];
        float[] dx0 = new float[x0.length];
        long nanos = seconds * 1_000_000_000L;
        for (int pass = 0; ; pass++) {
            long start = System.nanoTime();
            long batches = 0;
            while (System.nanoTime() - start < nanos) {
                kernel.forward(p, x0, n, logits);
                kernel.backward(p, x0, n, dLogits, g, dx0);
                batches++;
            }
            if (pass == 1) {
                return batches * (double) n / ((System.nanoTime() - start) / 1e9);
            }
        }
    }
}
