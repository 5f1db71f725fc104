package io.streamtrain.cli;

import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.bench.SeedTable;
import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.train.TrainingJob;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.TrainingRun;
import java.io.IOException;
import java.io.PrintStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench export}: how long {@code export --bundle} takes per million rows. The
 * table is seeded into a savepoint ({@link SeedTable}, as the PS would initialise the rows) and
 * exported from there: its state files read directly, as export reads any checkpoint or savepoint
 * ({@link CheckpointRows}).
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Seeds savepoints with N embedding rows each and times `export --bundle` on them (checksums checked, state files "
                + "read in parallel, SST files bulk-loaded), then the bundle's open-and-verify; prints a table.")
public final class ExportBenchCommand implements Callable<Integer> {
    @Option(names = "--rows", split = ",", defaultValue = "1000000", description = "Row counts to measure, comma-separated (default: ${DEFAULT-VALUE}).")
    List<Long> rows;

    @Option(names = "--dim", defaultValue = "16", description = "FM dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--fields", defaultValue = "10", description = "Fields the rows are spread over (default: ${DEFAULT-VALUE}).")
    int fields;

    @Option(names = "--state-processor-api", description = "Also time reading the rows through the State Processor API, the path"
            + " export took before it read state files directly (slow: about 15 s per million rows).")
    boolean stateProcessorApi;

    @Option(names = "--keep-bundles", paramLabel = "DIR",
            description = "Keep each bundle as DIR/bundle-N (N rows), e.g. for bench serve on a big model; default: deleted with the rest.")
    Path keepBundles;

    @Override
    public Integer call() throws Exception {
        try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-bench-export")) {
            return run(scratch.path());
        }
    }

    private Integer run(Path dir) throws Exception {
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.MODEL, ModelKind.FM);
        conf.set(PsOptions.DIM, dim);
        conf.set(PsOptions.OPTIMIZER, OptimizerKind.ADAGRAD);
        conf.set(PipelineOptions.MAX_PARALLELISM, KeyGroups.DEFAULT_MAX_PARALLELISM);
        ModelInfo info = TrainingJob.modelInfo(conf);
        System.out.println("| rows | dim | seed s | export s | export s per 1M rows | rows/s | export CPU s | State Processor API read rows/s | bundle MB | open+verify s |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        try {
            for (long n : rows) {
                Path run = dir.resolve("rows-" + n);
                long seedStart = System.nanoTime();
                long seeded = SeedTable.write(run.resolve("savepoint"), fields, Math.max(1, n / fields),
                        RowInitializer.from(conf, ModelKind.FM), OptimizerConfig.from(conf), KeyGroups.DEFAULT_MAX_PARALLELISM, 2);
                double seedSeconds = seconds(seedStart);
                long exportStart = System.nanoTime();
                long exportCpuStart = processCpuNanos();
                ModelCard card = BundleWriter.write(run.resolve("savepoint"), info, ModelCard.FeatureMapping.of(null, ParseOptions.DEFAULT_HASH_BITS),
                        run.resolve("bundle"), new PrintStream(OutputStream.nullOutputStream()), Long.MAX_VALUE);
                double exportSeconds = seconds(exportStart);
                double exportCpuSeconds = (processCpuNanos() - exportCpuStart) / 1e9;
                long verifyStart = System.nanoTime();
                try (Bundle bundle = Bundle.open(run.resolve("bundle"))) {
                    bundle.verify();
                }
                double verifySeconds = seconds(verifyStart);
                String oldPath = "-";
                if (stateProcessorApi) {
                    long oldStart = System.nanoTime();
                    long read = CheckpointRows.readThroughStateProcessorApi(run.resolve("savepoint"), info, row -> {});
                    oldPath = String.format(Locale.ROOT, "%,.0f", read / seconds(oldStart));
                }
                System.out.printf(Locale.ROOT, "| %,d | %d | %.1f | %.1f | %.1f | %,.0f | %.1f | %s | %.0f | %.1f |%n", card.contents().rows(), dim,
                        seedSeconds, exportSeconds, exportSeconds / (card.contents().rows() / 1e6), card.contents().rows() / exportSeconds,
                        exportCpuSeconds, oldPath,
                        bytes(run.resolve("bundle")) / 1e6, verifySeconds);
                if (keepBundles != null) {
                    Files.createDirectories(keepBundles);
                    Files.move(run.resolve("bundle"), keepBundles.resolve("bundle-" + n));
                }
                if (card.contents().rows() != seeded) {
                    System.err.println("bench: the bundle has " + card.contents().rows() + " rows, the savepoint " + seeded);
                    return 1;
                }
            }
        } finally {
            delete(dir);
        }
        return 0;
    }

    /** CPU time of the whole process: on a shared machine, the export's own cost beside its wall time. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private static long bytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
