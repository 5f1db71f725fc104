package io.streamtrain.ingest;

import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.synthetic.PlantedFm;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain ingest}: a file (or stdin, or planted synthetic data) into a Kafka topic as Avro examples. */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = {"Writes training examples to a Kafka topic (Avro Example records) and every rejected "
                + "line to a dead-letter topic (Avro DeadLetter records with line number and reason).",
                "Prints progress to stderr and, once Kafka acknowledged everything, one summary line to stdout:",
                "  ingest: records=N bad=B bytes=X seconds=S rate=R/s topic=T dead_letter_topic=D",
                "Exit code 1 when a record could not be written."})
public final class IngestCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic for the examples.")
    String topic;

    @Option(names = "--format", paramLabel = "FORMAT", converter = FormatConverter.class,
            completionCandidates = FormatNames.class,
            description = "Input format with --file: ${COMPLETION-CANDIDATES}.")
    LineFormat format;

    @Option(names = "--file", paramLabel = "FILE", description = "Input file, or - for stdin.")
    String file;

    @Option(names = "--dead-letter-topic", paramLabel = "TOPIC", description = "Default: <topic>.dlq.")
    String deadLetterTopic;

    @Option(names = "--max-features", defaultValue = "" + ParseOptions.DEFAULT_MAX_FEATURES, paramLabel = "N",
            description = "Reject lines with more features (default: ${DEFAULT-VALUE}).")
    int maxFeatures;

    @Option(names = "--hash-bits", defaultValue = "" + ParseOptions.DEFAULT_HASH_BITS, paramLabel = "BITS",
            description = "Criteo categoricals hash to ids in [0, 2^BITS), 1..48 (default: ${DEFAULT-VALUE}).")
    int hashBits;

    @Option(names = "--partitions", defaultValue = "" + IngestSettings.DEFAULT_PARTITIONS, paramLabel = "N",
            description = "Create missing topics with N partitions; 0 = do not create (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--synthetic", paramLabel = "N",
            description = "Instead of --file: N examples drawn from a planted factorization machine.")
    Long synthetic;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
            description = "Seed of the planted model and of the draws (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--truth", paramLabel = "FILE",
            description = "Where --synthetic writes the planted truth as JSON (default: ./<topic>.truth.json).")
    Path truth;

    @Option(names = "--base-time", paramLabel = "EPOCH_MILLIS",
            description = "With --synthetic: example i gets event time BASE+i (default: now).")
    Long baseTime;

    @Override
    public Integer call() {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        IngestSettings settings = IngestSettings.of(bootstrap, topic)
                .withDeadLetterTopic(deadLetterTopic != null ? deadLetterTopic : IngestSettings.defaultDeadLetterTopic(topic))
                .withPartitions(partitions)
                .withProgress(line -> {
                    err.println(line);
                    err.flush();
                }, IngestSettings.DEFAULT_PROGRESS_INTERVAL);
        IngestStats stats;
        try {
            if (synthetic != null) {
                PlantedFm model = new PlantedFm(seed);
                Path truthFile = truth != null ? truth : Path.of(topic + ".truth.json");
                model.writeTruth(truthFile);
                err.printf("ingest: planted truth (seed %d) written to %s%n", seed, truthFile);
                long base = baseTime != null ? baseTime : System.currentTimeMillis();
                stats = Ingestor.ingestSynthetic(settings, model, synthetic, seed, base);
            } else {
                String name = "-".equals(file) ? "stdin" : String.valueOf(Path.of(file).getFileName());
                ParseOptions options = ParseOptions.defaults(name).withMaxFeatures(maxFeatures).withHashBits(hashBits);
                stats = Ingestor.ingestFile(settings, file, format.parser(options));
            }
        } catch (IngestException | IOException e) {
            err.println("ingest: error: " + e.getMessage());
            err.flush();
            return 1;
        }
        out.println(stats.summaryLine());
        out.flush();
        return 0;
    }

    private void validate() {
        if ((file == null) == (synthetic == null)) {
            throw new ParameterException(spec.commandLine(), "give exactly one of --file FILE and --synthetic N");
        }
        if (file != null && format == null) {
            throw new ParameterException(spec.commandLine(), "--file needs --format (libsvm, libffm or criteo)");
        }
        if (synthetic != null && synthetic < 0) {
            throw new ParameterException(spec.commandLine(), "--synthetic must be >= 0");
        }
        if (maxFeatures < 1) {
            throw new ParameterException(spec.commandLine(), "--max-features must be >= 1");
        }
        if (hashBits < 1 || hashBits > 48) {
            throw new ParameterException(spec.commandLine(), "--hash-bits must be in 1..48");
        }
        if (partitions < 0) {
            throw new ParameterException(spec.commandLine(), "--partitions must be >= 0");
        }
        if (topic.equals(deadLetterTopic)) {
            throw new ParameterException(spec.commandLine(), "--dead-letter-topic must differ from --topic");
        }
    }

    static final class FormatConverter implements ITypeConverter<LineFormat> {
        @Override
        public LineFormat convert(String value) {
            return LineFormat.fromName(value);
        }
    }

    static final class FormatNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(LineFormat.values()).map(LineFormat::cliName).iterator();
        }
    }
}
