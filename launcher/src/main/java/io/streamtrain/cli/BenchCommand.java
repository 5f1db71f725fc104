package io.streamtrain.cli;

import io.streamtrain.config.KnownOption;
import io.streamtrain.config.SettingsCheck;
import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.ingest.IngestBenchCommand;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.report.MetricsTopic;
import io.streamtrain.report.ReportWriter;
import io.streamtrain.report.RunTimeline;
import io.streamtrain.schema.Example;
import io.streamtrain.serve.ServeBenchCommand;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.reference.SequentialTrainer;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code streamtrain bench}: end-to-end training throughput and staleness, printed as a table. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measures end-to-end examples/s (records in Kafka -> applied to the model) for lr and fm (or any --models, "
                + "deepfm, wdl and dcn among them: their tower takes --fields fields) at "
                + "parallelism 1 and 2 against a plain single-thread in-memory loop on the same data, plus gradient staleness "
                + "and checkpoint cost. Prints a markdown table. `bench elastic` times rescales and recoveries instead; "
                + "`bench freshness` times a record's way from Kafka to a published model update; `bench serve` loads `serve`; "
                + "`bench dense` times a deep model's forward and backward pass alone; `bench join` measures the joiner's impressions/s; `bench ingest` Criteo TSV ingest lines/s.",
        subcommands = {DenseBenchCommand.class, ElasticBenchCommand.class, FreshnessBenchCommand.class, ServeBenchCommand.class, ExportBenchCommand.class,
            JoinBenchCommand.class, IngestBenchCommand.class})
public final class BenchCommand implements Callable<Integer> {
    private static final long INGEST_SEED = 5;
    /** The bench's workload, wider than the option's default: rows like a production FM's. */
    private static final int BENCH_DIM = 16;
    private static final Duration BENCH_CHECKPOINT_INTERVAL = Duration.ofSeconds(10);

    @Option(names = "--examples", defaultValue = "3000000",
            description = "Examples per run: enough for several checkpoint intervals at full speed, between which the rate is "
                    + "read (default: ${DEFAULT-VALUE}).")
    int examples;

    @Option(names = "--fields", defaultValue = "10", description = "Features per example (default: ${DEFAULT-VALUE}).")
    int fields;

    @Option(names = "--vocabulary", defaultValue = "100000", description = "Ids per field (default: ${DEFAULT-VALUE}).")
    int vocabulary;

    @Option(names = "--dim", description = "FM dimension (streamtrain.ps.dim; the bench's default: " + BENCH_DIM + ").")
    Integer dim;

    @Option(names = "--parallelisms", defaultValue = "1,2", split = ",", description = "Parallelisms to run (default: ${DEFAULT-VALUE}).")
    List<Integer> parallelisms;

    @Option(names = "--models", defaultValue = "lr,fm", split = ",", description = "Models to run (default: ${DEFAULT-VALUE}).")
    List<String> models;

    @Option(names = "--batch-size", description = "Examples per mini-batch (streamtrain.train.batch-size).")
    Integer batchSize;

    @Option(names = "--checkpoint-interval", converter = DurationConverter.class,
            description = "Checkpoint interval of the training runs, as a deployed job checkpoints (k8s/: 10-60 s) "
                    + "(execution.checkpointing.interval; the bench's default: 10 s). Pushes that wait through a PS snapshot "
                    + "are the staleness tail, and their share grows as the interval shrinks: at 1 s the p99 is theirs (docs/benchmarks.md).")
    Duration checkpointInterval;

    @Option(names = "--warmup-examples", defaultValue = "2000000",
            description = "Examples of a run of the first model at each measured parallelism and variant, not measured, before the measured runs, so they "
                    + "meet a JVM whose JIT has compiled the loop: a training job runs for days, and a cold JVM spends half a "
                    + "core compiling for its first minutes. 0 measures cold (default: ${DEFAULT-VALUE}).")
    int warmupExamples;

    @Option(names = "--runs", defaultValue = "1",
            description = "Runs of each model and parallelism, one row each: single runs on a 2-core machine vary by a quarter "
                    + "(default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--variant", paramLabel = "NAME:KEY=VALUE[,KEY=VALUE...]",
            description = "Compare settings inside one JVM: each run of each model and parallelism is trained once per variant, "
                    + "in turn (the order reversed every other run), with the variant's keys on top of the flags, -D and the configuration file (NAME: alone adds none). Separate invocations differ by a "
                    + "quarter through the JIT alone, so smaller effects show only this way. Repeatable.")
    List<String> variantSpecs = new ArrayList<>();

    @Option(names = "--plots", paramLabel = "DIR",
            description = "Write each run's curves from its metrics topic as SVG files into DIR (<run>-<series>.svg, as `report --svg-dir`).")
    Path plots;

    @Mixin
    ConfigurationSources sources;

    /** The runs' settings from the flags, -D and the configuration file, resolved once. */
    private Configuration base;

    @Override
    public Integer call() throws Exception {
        try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-bench")) {
            return run(scratch.path());
        }
    }

    private Integer run(Path dir) throws Exception {
        base = sources.resolve(new Flags()
                .with("--batch-size", TrainingOptions.BATCH_SIZE, batchSize)
                .with("--dim", PsOptions.DIM, dim)
                .with("--checkpoint-interval", CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval), System.err::println);
        if (!base.contains(PsOptions.DIM)) {
            base.set(PsOptions.DIM, BENCH_DIM);
        }
        if (!base.contains(TrainingOptions.FIELDS)) {
            base.set(TrainingOptions.FIELDS, fields); // a deep model's tower takes every field of the workload
        }
        if (!base.contains(CheckpointingOptions.CHECKPOINTING_INTERVAL)) {
            base.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, BENCH_CHECKPOINT_INTERVAL);
        }
        PlantedFm truth = new PlantedFm(3, fields, vocabulary, 1.1, 4);
        List<BenchVariant> variants = BenchVariant.parseAll(variantSpecs);
        variants.forEach(v -> SettingsCheck.check(v.settings()).orThrow());
        List<String> table = new ArrayList<>();
        table.add("| model | parallelism | run |" + (variantSpecs.isEmpty() ? "" : " variant |")
                + " examples/s end-to-end | CPU µs per example | in-memory loop examples/s | ratio | steady staleness p50 ms | steady staleness p99 ms | rows "
                + "| checkpoint ms | checkpoint MB | MB per 1M rows |");
        table.add("|---|---|---|" + (variantSpecs.isEmpty() ? "" : "---|") + "---|---|---|---|---|---|---|---|---|---|");
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"))) {
            // One warm-up per parallelism and variant, of the first model measured: after a p=1 warm-up
            // alone, p=2 runs kept getting faster from run to run (the JIT was still compiling a fifth of
            // the CPU a minute into a cold run), and a warm-up of fm left a deep model's code cold (the
            // JIT was a fifth of the CPU again in a deepfm run's steady span).
            if (warmupExamples > 0) {
                for (int p : new LinkedHashSet<>(parallelisms)) {
                    for (BenchVariant variant : variants) {
                        String topic = "bench-warmup-p" + p + variant.topicSuffix();
                        SyntheticIngest.ingestSynthetic(IngestSettings.of(kafka.connection(), topic), truth, warmupExamples, INGEST_SEED,
                                System.currentTimeMillis());
                        TrainingSummary w = train(kafka, dir, topic, models.get(0), p, variant);
                        System.err.println("bench: warm-up run at parallelism " + p + ", not measured: " + w.line());
                    }
                }
            }
            for (String model : models) {
                Map<BenchVariant, Double> loops = new HashMap<>();
                for (BenchVariant variant : variants) {
                    loops.put(variant, inMemoryRate(model, truth, variant));
                }
                for (int p : parallelisms) {
                    for (int run = 1; run <= runs; run++) {
                        // Every other run in reverse order (A B, B A, ...): a JVM keeps getting faster
                        // for minutes, and a fixed order would credit that to the later variants.
                        List<BenchVariant> order = new ArrayList<>(variants);
                        if (run % 2 == 0) {
                            Collections.reverse(order);
                        }
                        for (BenchVariant variant : order) {
                            table.add(measure(kafka, dir, model, p, run, variant, truth, loops.get(variant)));
                        }
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "bench: %d examples, %d features each, vocabulary %d per field, dim %d, batch %d, checkpoints every %s, "
                        + "after a warm-up run of %d examples at each parallelism; examples/s, CPU and staleness over each run's steady span "
                        + "(its whole run's staleness in its summary line)%n",
                examples, fields, vocabulary, base.get(PsOptions.DIM), base.get(TrainingOptions.BATCH_SIZE),
                KnownOption.valueText(CheckpointingOptions.CHECKPOINTING_INTERVAL, base.get(CheckpointingOptions.CHECKPOINTING_INTERVAL)),
                warmupExamples);
        table.forEach(System.out::println);
        return 0;
    }

    /** One run of {@code model} at parallelism {@code p} with {@code variant}'s settings: its row of the table. */
    private String measure(LocalKafka kafka, Path dir, String model, int p, int run, BenchVariant variant, PlantedFm truth,
                           double loop) throws Exception {
        String topic = "bench-" + model + "-" + p + variant.topicSuffix() + (runs > 1 ? "-r" + run : "");
        SyntheticIngest.ingestSynthetic(IngestSettings.of(kafka.connection(), topic), truth, examples, INGEST_SEED, System.currentTimeMillis());
        TrainingSummary s = train(kafka, dir, topic, model, p, variant);
        System.err.println(s.line());
        if (plots != null) {
            RunTimeline timeline = RunTimeline.of(MetricsTopic.readToEnd(kafka.connection(),
                    TrainingOptions.metricsTopic(trainingConf(kafka, topic, model, variant)), Duration.ofSeconds(60)).records());
            System.err.println("bench: plots of " + topic + ": " + ReportWriter.writeSvgs(plots, topic, timeline));
        }
        Path checkpoints = dir.resolve(topic);
        long rows = CheckpointRows.read(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints), row -> {});
        double mb = s.checkpointBytes() / 1e6;
        return String.format(Locale.ROOT, "| %s | %d | %d |%s %.0f | %.1f | %.0f | %.2f | %.0f | %.0f | %d | %d | %.1f | %.1f |",
                model, p, run, variantSpecs.isEmpty() ? "" : " " + variant.name() + " |", s.examplesPerSecond(), s.steadyCpuMicrosPerExample(),
                loop, s.examplesPerSecond() / loop, s.steadyStalenessP50Ms(), s.steadyStalenessP99Ms(), rows, s.checkpointMs(), mb, mb / Math.max(1e-6, rows / 1e6));
    }

    /**
     * Trains {@code topic}'s examples to the end, checkpointing every {@code --checkpoint-interval}
     * unless {@code -D} or the variant sets {@code execution.checkpointing.interval}.
     */
    private TrainingSummary train(LocalKafka kafka, Path dir, String topic, String model, int parallelism, BenchVariant variant)
            throws Exception {
        Configuration conf = trainingConf(kafka, topic, model, variant);
        return TrainingRun.run(new TrainingRun.Settings(conf, dir.resolve(topic), parallelism,
                conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL), Duration.ofSeconds(3), false, System.err));
    }

    /** A run's configuration: the resolved settings, the variant's on top, and the run's own topic, name and model. */
    private Configuration trainingConf(LocalKafka kafka, String topic, String model, BenchVariant variant) {
        Configuration conf = new Configuration(base);
        conf.addAll(Configuration.fromMap(variant.settings()));
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, ConfigurationUtils.convertToEnum(model, ModelKind.class));
        return conf;
    }

    /**
     * As many examples of the same planted model, trained by {@link SequentialTrainer}. They are
     * drawn here and dropped after: a list of millions of example objects kept through the training runs
     * was live heap that G1's concurrent marking traced again and again, a quarter of the machine's
     * CPU in a 6M-example run, charged to the job it measured. The variant's settings apply, as in
     * the job it is the limit of.
     */
    private double inMemoryRate(String model, PlantedFm truth, BenchVariant variant) {
        List<Example> data = new ArrayList<>(examples);
        Random random = new Random(INGEST_SEED);
        for (int i = 0; i < examples; i++) {
            data.add(truth.next(random));
        }
        Configuration conf = new Configuration(base);
        conf.addAll(Configuration.fromMap(variant.settings()));
        conf.set(TrainingOptions.MODEL, ConfigurationUtils.convertToEnum(model, ModelKind.class));
        SequentialTrainer trainer = SequentialTrainer.of(conf);
        long t = System.nanoTime();
        trainer.train(data, base.get(TrainingOptions.BATCH_SIZE));
        return data.size() / ((System.nanoTime() - t) / 1e9);
    }
}
