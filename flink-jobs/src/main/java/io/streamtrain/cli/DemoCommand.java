package io.streamtrain.cli;

import io.streamtrain.export.HeldOut;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.IngestStats;
import io.streamtrain.ingest.Ingestor;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain demo}: embedded Kafka, a planted synthetic stream, FM training, held-out comparison. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {
            "Starts a real Kafka broker on 127.0.0.1, writes a synthetic stream drawn from a planted factorization",
            "machine, trains an FM on it with Flink until the stream is idle, and compares the learned model's",
            "held-out AUC/logloss with the planted model's."
        })
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--examples", defaultValue = "200000", description = "Training examples (default: ${DEFAULT-VALUE}).")
    long examples;

    @Option(names = "--seed", defaultValue = "7", description = "Seed of the planted model and data (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--model", defaultValue = "fm", description = "lr or fm (default: ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--dim", defaultValue = "4", description = "FM dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--parallelism", defaultValue = "2", description = "Job parallelism (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = "--batch-size", defaultValue = "1024", description = "Examples per mini-batch (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @Option(names = "--vocabulary", defaultValue = "100", description = "Ids per field of the planted model (default: ${DEFAULT-VALUE}).")
    int vocabulary;

    @Option(names = "--learning-rate", defaultValue = "0.1", description = "Adagrad step size (default: ${DEFAULT-VALUE}).")
    double learningRate;

    @Option(names = "--dir", defaultValue = ".streamtrain/demo", description = "Working directory, cleared first (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Override
    public Integer call() throws Exception {
        clear(dir);
        System.err.println("demo: starting Kafka (KRaft) on 127.0.0.1 ...");
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"))) {
            String topic = "demo-examples";
            PlantedFm truth = new PlantedFm(seed, PlantedFm.DEFAULT_FIELDS, vocabulary, PlantedFm.DEFAULT_ZIPF_EXPONENT, PlantedFm.DEFAULT_DIM);
            IngestStats ingest = Ingestor.ingestSynthetic(
                    IngestSettings.of(kafka.bootstrapServers(), topic).withProgress(System.err::println, Duration.ofSeconds(2)),
                    truth, examples, seed, System.currentTimeMillis());
            System.err.println(ingest.summaryLine());

            Configuration conf = new Configuration();
            conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
            conf.set(TrainingOptions.TOPIC, topic);
            conf.set(TrainingOptions.NAME, "demo");
            conf.set(TrainingOptions.MODEL, model);
            conf.set(PsOptions.DIM, dim);
            conf.set(PsOptions.LEARNING_RATE, learningRate);
            conf.set(TrainingOptions.BATCH_SIZE, batchSize);
            Path checkpoints = dir.resolve("checkpoints");
            TrainingSummary summary = TrainingRun.run(new TrainingRun.Settings(
                    conf, checkpoints, parallelism, Duration.ofSeconds(1), Duration.ofSeconds(3), false, System.err));
            System.err.println(summary.line());

            HeldOut heldOut = HeldOut.evaluate(truth, LoadedModel.load(checkpoints)::predict, 20_000, seed + 1);
            System.out.println(heldOut.table());
            System.out.println(String.format(Locale.ROOT,
                    "demo: trained %d examples at %.0f examples/s; learned AUC %.4f vs planted %.4f (gap %.4f); checkpoints in %s",
                    summary.records(), summary.examplesPerSecond(), heldOut.learnedAuc(), heldOut.plantedAuc(),
                    heldOut.plantedAuc() - heldOut.learnedAuc(), checkpoints.toAbsolutePath()));
        }
        return 0;
    }

    private static void clear(Path dir) throws Exception {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(dir);
    }
}
