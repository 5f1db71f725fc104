package io.streamtrain.ingest;

import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.synthetic.CriteoShaped;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticEvents;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.kafka.KafkaConnection;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.Spec;

/** {@code streamtrain ingest}: a file (or stdin, or planted synthetic data) into a Kafka topic as Avro examples. */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = {"Writes training examples to a Kafka topic (Avro Example records) and every rejected "
                + "line to a dead-letter topic (Avro DeadLetter records with line number and reason).",
                "With --synthetic-events N: a planted impression/click stream for `streamtrain join` instead (Avro Impression"
                        + " and Click records keyed by impression id, to --impressions and --clicks).",
                "Prints progress to stderr and, once Kafka acknowledged everything, one summary line to stdout:",
                "  ingest: records=N bad=B bytes=X seconds=S rate=R/s topic=T dead_letter_topic=D",
                "  ingest: impressions=N clicks=C duplicate_impressions=.. duplicate_clicks=.. clicks_beyond_window=.. ctr=.."
                        + " planted_auc=.. records=.. bytes=.. seconds=.. rate=../s impressions_topic=.. clicks_topic=..",
                "Exit code 1 when a record could not be written."})
public final class IngestCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE", description = KafkaClientProperties.DESCRIPTION)
    Path kafkaProperties;

    @Option(names = "--topic", paramLabel = "TOPIC", description = "Topic for the examples (with --file or --synthetic).")
    String topic;

    @Option(names = "--format", paramLabel = "FORMAT", converter = FormatConverter.class,
            completionCandidates = FormatNames.class,
            description = "Input format with --file: ${COMPLETION-CANDIDATES}.")
    LineFormat format;

    @Option(names = "--file", paramLabel = "FILE", description = "Input file, or - for stdin.")
    String file;

    @Option(names = "--mapping", paramLabel = "FILE",
            description = "Feature mapping of csv and jsonl (required) or avazu (default builtin:avazu): a mapping JSON"
                    + " file or builtin:NAME; the definition the joiner and scoring use too.")
    String mapping;

    @Option(names = "--dead-letter-topic", paramLabel = "TOPIC", description = "Default: <topic>.dlq.")
    String deadLetterTopic;

    @Option(names = "--max-features", defaultValue = "" + ParseOptions.DEFAULT_MAX_FEATURES, paramLabel = "N",
            description = "Reject lines with more features (default: ${DEFAULT-VALUE}).")
    int maxFeatures;

    @Option(names = "--hash-bits", defaultValue = "" + ParseOptions.DEFAULT_HASH_BITS, paramLabel = "BITS",
            description = "Criteo categoricals hash to ids in [0, 2^BITS), 1..48 (default: ${DEFAULT-VALUE}); mapped formats"
                    + " take hash_bits from the mapping.")
    int hashBits;

    @Option(names = "--partitions", defaultValue = "" + IngestSettings.DEFAULT_PARTITIONS, paramLabel = "N",
            description = "Create missing topics with N partitions; 0 = do not create (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--synthetic", paramLabel = "N",
            description = "Instead of --file: N examples drawn from a planted factorization machine.")
    Long synthetic;

    @Option(names = "--synthetic-criteo", paramLabel = "N",
            description = "Instead of --file: N lines shaped like the Criteo display-ads log (13 integer and 26"
                    + " categorical columns, heavy-tailed values, missing values, click rate 0.2 from a planted FM),"
                    + " ingested through the criteo format; for benchmarks.")
    Long syntheticCriteo;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
            description = "Seed of the planted model and of the draws (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--truth", paramLabel = "FILE",
            description = "Where --synthetic (--synthetic-events) writes the planted truth as JSON"
                    + " (default: ./<topic>.truth.json, ./<impressions topic>.truth.json).")
    Path truth;

    @Option(names = "--base-time", paramLabel = "EPOCH_MILLIS",
            description = "With --synthetic: example i gets event time BASE+i; with --synthetic-events: the first"
                    + " impression's time (default: now).")
    Long baseTime;

    @Option(names = "--synthetic-events", paramLabel = "N",
            description = "Instead of --file: N impressions (and their clicks) from a planted click model.")
    Long syntheticEvents;

    @ArgGroup(exclusive = false, heading = "Synthetic events (with --synthetic-events):%n")
    EventOptions events = new EventOptions();

    /** The knobs of {@code --synthetic-events}; the defaults are {@link SyntheticEvents.Settings#defaults}. */
    static final class EventOptions {
        @Option(names = "--impressions", defaultValue = "impressions", paramLabel = "TOPIC",
                description = "Impressions topic (default: ${DEFAULT-VALUE}).")
        String impressionsTopic = "impressions";

        @Option(names = "--clicks", defaultValue = "clicks", paramLabel = "TOPIC", description = "Clicks topic (default: ${DEFAULT-VALUE}).")
        String clicksTopic = "clicks";

        @Option(names = "--users", defaultValue = "10000", paramLabel = "N", description = "Users, Zipf popularity (default: ${DEFAULT-VALUE}).")
        int users = 10_000;

        @Option(names = "--items", defaultValue = "1000", paramLabel = "N", description = "Items, Zipf popularity (default: ${DEFAULT-VALUE}).")
        int items = 1_000;

        @Option(names = "--zipf", defaultValue = "1.1", paramLabel = "S", description = "Zipf exponent of users and items (default: ${DEFAULT-VALUE}).")
        double zipf = 1.1;

        @Option(names = "--ctr", defaultValue = "0.05", paramLabel = "P", description = "Mean planted click probability (default: ${DEFAULT-VALUE}).")
        double ctr = 0.05;

        @Option(names = "--interval", defaultValue = "10ms", converter = EventDuration.class, paramLabel = "DURATION",
                description = "Mean event-time gap between impressions, Poisson arrivals (default: ${DEFAULT-VALUE}).")
        Duration interval = Duration.ofMillis(10);

        @Option(names = "--window", defaultValue = "15m", converter = EventDuration.class, paramLabel = "DURATION",
                description = "The joiner's attribution window; clicks are planted within it or, on purpose, beyond it (default: ${DEFAULT-VALUE}).")
        Duration window = Duration.ofMinutes(15);

        @Option(names = "--click-delay", defaultValue = "1m", converter = EventDuration.class, paramLabel = "DURATION",
                description = "Mean click delay, exponential truncated at the window (default: ${DEFAULT-VALUE}).")
        Duration clickDelay = Duration.ofMinutes(1);

        @Option(names = "--beyond-window", defaultValue = "0.02", paramLabel = "RATE",
                description = "Share of clicks that come after the window (default: ${DEFAULT-VALUE}).")
        double beyondWindow = 0.02;

        @Option(names = "--disorder", defaultValue = "5s", converter = EventDuration.class, paramLabel = "DURATION",
                description = "Records are delivered up to this long after their event time, so they run out of order;"
                        + " keep it below the joiner's out-of-orderness (30s) (default: ${DEFAULT-VALUE}).")
        Duration disorder = Duration.ofSeconds(5);

        @Option(names = "--duplicates", defaultValue = "0.01", paramLabel = "RATE",
                description = "Share of impressions and of clicks delivered twice (default: ${DEFAULT-VALUE}).")
        double duplicates = 0.01;

        SyntheticEvents.Settings settings(long n, long baseTime) {
            return new SyntheticEvents.Settings(n, users, items, zipf, SyntheticEvents.Settings.DEFAULT_DIM, ctr,
                    interval, window, clickDelay, beyondWindow, disorder, duplicates, baseTime);
        }
    }

    @Override
    public Integer call() {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String target = syntheticEvents != null ? events.impressionsTopic : topic;
        IngestSettings settings = IngestSettings.of(KafkaConnection.of(bootstrap, kafkaProperties), target)
                .withDeadLetterTopic(deadLetterTopic != null ? deadLetterTopic : IngestSettings.defaultDeadLetterTopic(target))
                .withPartitions(partitions)
                .withProgress(line -> {
                    err.println(line);
                    err.flush();
                }, IngestSettings.DEFAULT_PROGRESS_INTERVAL);
        IngestStats stats;
        try {
            if (syntheticEvents != null) {
                return syntheticEvents(settings, out, err);
            }
            if (syntheticCriteo != null) {
                err.printf("ingest: %d Criteo-shaped lines (seed %d, planted click rate %.2f)%n", syntheticCriteo, seed, CriteoShaped.CLICK_RATE);
                stats = SyntheticIngest.ingestSyntheticCriteo(settings, new CriteoShaped(seed), syntheticCriteo, seed);
            } else if (synthetic != null) {
                PlantedFm model = new PlantedFm(seed);
                Path truthFile = truth != null ? truth : Path.of(topic + ".truth.json");
                model.writeTruth(truthFile);
                err.printf("ingest: planted truth (seed %d) written to %s%n", seed, truthFile);
                long base = baseTime != null ? baseTime : System.currentTimeMillis();
                stats = SyntheticIngest.ingestSynthetic(settings, model, synthetic, seed, base);
            } else {
                String name = "-".equals(file) ? "stdin" : String.valueOf(Path.of(file).getFileName());
                ParseOptions options = ParseOptions.defaults(name).withMaxFeatures(maxFeatures).withHashBits(hashBits);
                stats = Ingestor.ingestFile(settings, file, parser(options));
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

    private LineParser parser(ParseOptions options) throws IOException {
        if (mapping == null) {
            return format.parser(options);
        }
        FeatureMapping m;
        try {
            m = FeatureMapping.load(mapping);
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            throw new ParameterException(spec.commandLine(), "--mapping " + mapping + ": " + e.getMessage());
        } catch (NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), "--mapping: no such file: " + mapping);
        }
        try {
            return format.parser(options, m);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--mapping " + mapping + ": " + e.getMessage());
        }
    }

    private int syntheticEvents(IngestSettings settings, PrintWriter out, PrintWriter err) throws IOException {
        long base = baseTime != null ? baseTime : System.currentTimeMillis();
        SyntheticEvents generator;
        try {
            generator = new SyntheticEvents(events.settings(syntheticEvents, base), seed);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        Path truthFile = truth != null ? truth : Path.of(events.impressionsTopic + ".truth.json");
        generator.writeTruth(truthFile);
        err.printf("ingest: planted click model (seed %d, bias %.3f) written to %s%n", seed, generator.model().bias(), truthFile);
        err.flush();
        SyntheticIngest.SyntheticEventsRun run = SyntheticIngest.ingestSyntheticEvents(settings, events.clicksTopic, generator);
        out.println(run.summaryLine());
        out.flush();
        return 0;
    }

    private void validate() {
        int sources = (file != null ? 1 : 0) + (synthetic != null ? 1 : 0) + (syntheticEvents != null ? 1 : 0)
                + (syntheticCriteo != null ? 1 : 0);
        if (sources != 1) {
            throw new ParameterException(spec.commandLine(),
                    "give exactly one of --file FILE, --synthetic N, --synthetic-criteo N and --synthetic-events N");
        }
        if (syntheticEvents != null) {
            if (syntheticEvents < 0) {
                throw new ParameterException(spec.commandLine(), "--synthetic-events must be >= 0");
            }
            if (topic != null) {
                throw new ParameterException(spec.commandLine(), "--synthetic-events writes to --impressions and --clicks, not --topic");
            }
            if (events.impressionsTopic.equals(events.clicksTopic)) {
                throw new ParameterException(spec.commandLine(), "--impressions and --clicks must differ");
            }
        } else if (topic == null) {
            throw new ParameterException(spec.commandLine(), "--file, --synthetic and --synthetic-criteo need --topic");
        }
        if (file != null && format == null) {
            throw new ParameterException(spec.commandLine(), "--file needs --format (libsvm, libffm, criteo, csv, jsonl or avazu)");
        }
        if (file != null && mapping == null && (format == LineFormat.CSV || format == LineFormat.JSONL)) {
            throw new ParameterException(spec.commandLine(), "--format " + format.cliName() + " needs --mapping FILE");
        }
        if (mapping != null && (format == null || !format.isMapped())) {
            throw new ParameterException(spec.commandLine(), "--mapping applies to --format csv, jsonl and avazu");
        }
        if (syntheticCriteo != null && syntheticCriteo < 0) {
            throw new ParameterException(spec.commandLine(), "--synthetic-criteo must be >= 0");
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
        if (topic != null && topic.equals(deadLetterTopic)) {
            throw new ParameterException(spec.commandLine(), "--dead-letter-topic must differ from --topic");
        }
    }

    /** Durations as {@code join} spells them: 500ms, 30s, 15m (or 15min), 2h, 1d. */
    static final class EventDuration implements ITypeConverter<Duration> {
        private static final Pattern FORM = Pattern.compile("(\\d+)\\s*(ms|s|m|min|h|d)");

        @Override
        public Duration convert(String value) {
            Matcher m = FORM.matcher(value.trim());
            if (!m.matches()) {
                throw new TypeConversionException("'" + value + "' is not a duration such as 500ms, 30s, 15m, 2h or 1d");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m", "min" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
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
