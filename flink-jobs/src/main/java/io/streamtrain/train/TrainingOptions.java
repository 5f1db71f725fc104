package io.streamtrain.train;

import static io.streamtrain.options.OptionRule.above;
import static io.streamtrain.options.OptionRule.atLeast;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.model.BatchModel;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.model.deep.DeepModel;
import io.streamtrain.model.deep.TowerKernels;
import io.streamtrain.options.OptionRule;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.dense.TorchTower;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Every knob of the training job (the PS's own are in {@code PsOptions}). The CLI flags of
 * {@code streamtrain train} map one-to-one onto these keys; anything else can be passed as
 * {@code -Dkey=value}.
 */
public final class TrainingOptions {
    private TrainingOptions() {}

    public static final ConfigOption<String> BOOTSTRAP =
            ConfigOptions.key("streamtrain.kafka.bootstrap-servers")
                    .stringType()
                    .defaultValue("127.0.0.1:9092")
                    .withDescription("Kafka bootstrap servers of the training, feedback, metrics and dead-letter topics.");

    public static final ConfigOption<Map<String, String>> KAFKA_PROPERTIES =
            ConfigOptions.key("streamtrain.kafka.properties")
                    .mapType()
                    .noDefaultValue()
                    .withDescription("Kafka client properties for every client the job and the launcher make (sources,"
                            + " sinks, the consumers and admin clients inside operators, progress readers), one key each:"
                            + " streamtrain.kafka.properties.<key>: <value> (e.g. security.protocol, sasl.*, ssl.*,"
                            + " request.timeout.ms). They replace a client's tuning defaults but not what it needs to be"
                            + " correct (isolation level, idempotence, transactions). Values are never logged.");

    public static final ConfigOption<Duration> KAFKA_OUTAGE_PATIENCE =
            ConfigOptions.key("streamtrain.kafka.outage-patience")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription("How long a running command (train and backfill's progress and --until-idle, serve"
                            + " --follow) waits out an unreachable Kafka cluster, e.g. a broker restart, before it gives"
                            + " up; it logs the outage meanwhile. Misconfiguration (authentication, authorization, an"
                            + " unresolvable address) is not waited out, nor is a cluster unreachable when a command starts.");

    public static final ConfigOption<String> TOPIC =
            ConfigOptions.key("streamtrain.train.topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Training topic: Avro Example records.");

    public static final ConfigOption<InputFormat> INPUT_FORMAT =
            ConfigOptions.key("streamtrain.train.input-format")
                    .enumType(InputFormat.class)
                    .defaultValue(InputFormat.EXAMPLE)
                    .withDescription("How the training topic's records are written. A record that does not decode, lacks"
                            + " a column the mapping reads, or fails the mapping goes to the dead-letter topic with the reason.");

    public static final ConfigOption<String> MAPPING =
            ConfigOptions.key("streamtrain.train.mapping")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The feature mapping of a json, avro or avro-registry topic: a mapping file (the JSON"
                            + " that ingest --mapping reads; it needs a \"label\" column) or builtin:NAME. Read where the job is built.");

    public static final ConfigOption<String> READER_SCHEMA =
            ConfigOptions.key("streamtrain.train.reader-schema")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("An Avro schema file (.avsc): the schema avro records were written with; for"
                            + " avro-registry, the schema every record is read as (Avro schema resolution from its writer"
                            + " schema; default: each record as written). Read where the job is built.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_URL =
            ConfigOptions.key("streamtrain.train.schema-registry-url")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The schema registry of an avro-registry topic: the base URL of its Confluent-compatible"
                            + " REST API (e.g. http://registry:8081, or Apicurio's http://registry:8080/apis/ccompat/v7).");

    public static final ConfigOption<String> NAME =
            ConfigOptions.key("streamtrain.train.name")
                    .stringType()
                    .defaultValue("streamtrain")
                    .withDescription("Model name: prefixes the consumer groups and transactional ids of this training lineage.");

    public static final ConfigOption<ModelKind> MODEL =
            ConfigOptions.key("streamtrain.train.model")
                    .enumType(ModelKind.class)
                    .defaultValue(ModelKind.FM)
                    .withDescription("Model family.");

    public static final ConfigOption<Integer> FIELDS =
            ConfigOptions.key("streamtrain.train.fields")
                    .intType()
                    .defaultValue(39)
                    .withDescription(
                            "Deep models (deepfm, wdl, dcn): the fields 0 .. fields-1 feed the dense tower, one"
                                    + " embedding each (a multi-valued field's embeddings summed with their values, an"
                                    + " absent field zeros), so its input is fields x streamtrain.ps.dim wide. Features"
                                    + " of higher fields reach the linear and FM parts only. 39 is Criteo's field count.");

    public static final ConfigOption<List<Integer>> HIDDEN =
            ConfigOptions.key("streamtrain.train.hidden")
                    .intType()
                    .asList()
                    .defaultValues(256, 128, 64)
                    .withDescription("Deep models: the widths of the MLP's hidden layers (ReLU), input side first; may be empty."
                            + " As a -D value or a SQL table option it is a Flink list, separated by semicolons"
                            + " ('256;128;64'); train's --hidden takes commas.");

    public static final ConfigOption<Integer> CROSS_LAYERS =
            ConfigOptions.key("streamtrain.train.cross-layers")
                    .intType()
                    .defaultValue(2)
                    .withDescription("dcn: the cross layers x_{l+1} = x0 * (W_l x_l + b_l) + x_l beside the MLP. Other models refuse it.");

    public static final ConfigOption<Integer> BATCH_SIZE =
            ConfigOptions.key("streamtrain.train.batch-size")
                    .intType()
                    .defaultValue(1024)
                    .withDescription(
                            "Examples per mini-batch (one task). Larger batches mean fewer batches in flight, so"
                                    + " less gradient staleness; see docs/benchmarks.md.");

    public static final ConfigOption<Integer> INITIAL_BATCH_SIZE =
            ConfigOptions.key("streamtrain.train.initial-batch-size")
                    .intType()
                    .defaultValue(32)
                    .withDescription(
                            "Examples in each source partition's first mini-batch; each later batch has a sixteenth"
                                    + " more, up to batch-size (reached after about 16 x batch-size examples). A fresh"
                                    + " model takes many small steps while it knows nothing (a log of a few thousand rows"
                                    + " is otherwise two or three steps); a long stream runs at the full batch size. Set it"
                                    + " to batch-size or more for a constant batch size. See docs/benchmarks.md.");

    public static final ConfigOption<Duration> MAX_WAIT =
            ConfigOptions.key("streamtrain.train.max-wait")
                    .durationType()
                    .defaultValue(Duration.ofMillis(500))
                    .withDescription(
                            "A batch closes early when a record's timestamp is this much later than its first"
                                    + " record's, or, once Kafka holds no further record of its partition, when it is"
                                    + " this old (with idle-cut-log; without it, when no record came for this long). Such"
                                    + " a batch is emitted once the cuts topic or a checkpoint holds the cut, to keep"
                                    + " replays deterministic.");

    public static final ConfigOption<Boolean> IDLE_CUT_LOG =
            ConfigOptions.key("streamtrain.train.idle-cut-log")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription("Record each idle cut in the cuts topic (<feedback topic>.cuts), so that an idle"
                            + " partition's last batch goes out once Kafka has the cut rather than after the next"
                            + " checkpoint (docs/decisions/0018). false: it waits for a checkpoint.");

    public static final ConfigOption<Integer> MAX_BATCHES_IN_FLIGHT =
            ConfigOptions.key("streamtrain.train.max-batches-in-flight")
                    .intType()
                    .defaultValue(2)
                    .withDescription(
                            "Flow control: batches per batcher subtask that may be pulled but not yet applied by the"
                                    + " PS before the batcher waits. Bounds gradient staleness during a backlog. 0 = off."
                                    + " Unset, a deep model (deepfm, wdl, dcn) takes 1: its worker spends 100-300 ms on a"
                                    + " batch, and a second batch pulled meanwhile waits through it.");

    /** What a deep model's batcher keeps in flight unless {@link #MAX_BATCHES_IN_FLIGHT} is set ({@link #maxBatchesInFlight}). */
    private static final int DEEP_MAX_BATCHES_IN_FLIGHT = 1;

    public static final ConfigOption<Duration> CREDIT_WAIT =
            ConfigOptions.key("streamtrain.train.credit-wait")
                    .durationType()
                    .defaultValue(Duration.ofMillis(20))
                    .withDescription(
                            "How long the batcher waits for a credit without any applied notice arriving, at least: twice its latest"
                                    + " batch's round trip (sent to applied) when that is longer, as a deep model's tower makes it"
                                    + " (streamtrain.train.credit-hard-cap in all);"
                                    + " when it runs out, that batch goes past the bound, and after max-batches-in-flight such"
                                    + " batches the bound is lifted until the next notice or the batcher's next checkpoint. The"
                                    + " usual cause is a checkpoint's barrier alignment at the PS, which holds up every notice"
                                    + " until the batcher reaches and forwards its barrier.");

    public static final ConfigOption<Duration> CREDIT_HARD_CAP =
            ConfigOptions.key("streamtrain.train.credit-hard-cap")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(2))
                    .withDescription(
                            "The longest one wait for a credit takes even while notices of other batches keep arriving"
                                    + " (ours were lost), and the whole wait while the PS takes its snapshot. Shorter: a lost"
                                    + " notice or a long PS snapshot holds the batcher up less, but more batches go past the"
                                    + " in-flight bound (staler gradients).");

    public static final ConfigOption<Duration> LAG_REFRESH_INTERVAL =
            ConfigOptions.key("streamtrain.train.lag-refresh-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .withDescription(
                            "How often the batcher re-reads its partitions' end offsets to compute its consumer lag"
                                    + " (metric and metrics topic). Shorter: fresher lag, more requests to the Kafka brokers.");

    public static final ConfigOption<Duration> METRICS_REPORT_INTERVAL =
            ConfigOptions.key("streamtrain.train.metrics-report-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .withDescription(
                            "How often each batcher, PS and worker subtask writes its record (lag, staleness, loss and"
                                    + " throughput) to the metrics topic while it has work. Shorter: finer dashboards and"
                                    + " reports, more records on the metrics topic.");

    public static final ConfigOption<String> APPLIED_TOPIC =
            ConfigOptions.key("streamtrain.train.applied-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic on which the PS announces each push it has handled (flow control only). Default:"
                                    + " <topic>.applied. If it cannot be followed (missing, or the principal may not read it), the"
                                    + " batcher's task fails; max-batches-in-flight 0 runs without flow control.");

    public static final ConfigOption<String> MODEL_UPDATES_TOPIC =
            ConfigOptions.key("streamtrain.train.model-updates-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "When set, the PS publishes every row it changes to this compacted topic (key and value in"
                                    + " the serving bundle's row layout) as soon as it applies a push, with the row's version"
                                    + " in a header: a recovery publishes the same rows at the same versions again, and"
                                    + " `serve --follow` keeps each row's highest version. With `streamtrain.ps.row-ttl` set, the updates are"
                                    + " transactional instead and become visible when their checkpoint completes. Unset: off.");

    public static final ConfigOption<Integer> MODEL_UPDATES_PARTITIONS =
            ConfigOptions.key("streamtrain.train.model-updates-partitions")
                    .intType()
                    .defaultValue(4)
                    .withDescription("Partitions of the model-updates topic when a local run creates it.");

    public static final ConfigOption<Integer> MAX_FEATURES =
            ConfigOptions.key("streamtrain.train.max-features")
                    .intType()
                    .defaultValue(1000)
                    .withDescription("Examples with more features are dead-lettered (too-many-features).");

    public static final ConfigOption<Integer> VALIDATION_WINDOW =
            ConfigOptions.key("streamtrain.train.validation-window")
                    .intType()
                    .defaultValue(20000)
                    .withDescription("Examples per worker subtask in the sliding progressive-validation window (AUC, logloss).");

    public static final ConfigOption<StartFrom> START_FROM =
            ConfigOptions.key("streamtrain.train.start-from")
                    .enumType(StartFrom.class)
                    .defaultValue(StartFrom.EARLIEST)
                    .withDescription("Where a fresh job (no checkpoint to resume) starts reading.");

    public static final ConfigOption<String> FEEDBACK_TOPIC =
            ConfigOptions.key("streamtrain.train.feedback-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Gradient feedback topic (worker → PS). Default: <topic>.feedback.");

    public static final ConfigOption<Integer> FEEDBACK_PARTITIONS =
            ConfigOptions.key("streamtrain.train.feedback-partitions")
                    .intType()
                    .defaultValue(8)
                    .withDescription("Partitions of the feedback topic when it is created; keep it >= the largest parallelism.");

    public static final ConfigOption<String> METRICS_TOPIC =
            ConfigOptions.key("streamtrain.train.metrics-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Progressive-validation metrics topic (Avro TrainingMetrics). Default: <topic>.metrics.");

    public static final ConfigOption<String> DEAD_LETTER_TOPIC =
            ConfigOptions.key("streamtrain.train.dead-letter-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Dead-letter topic for records that cannot be trained on. Default: <topic>.dlq.");

    public static final ConfigOption<Long> INJECT_FAILURE_AFTER =
            ConfigOptions.key("streamtrain.train.inject-failure-after")
                    .longType()
                    .defaultValue(0L)
                    .withDescription("Diagnostic: a batcher task fails once (first attempt only) after this many records. 0 = off.");

    public static final ConfigOption<Map<String, String>> START_OFFSETS =
            ConfigOptions.key("streamtrain.train.start-offsets")
                    .mapType()
                    .noDefaultValue()
                    .withDescription(
                            "Per-partition start offsets of the training topic, as partition:offset pairs"
                                    + " ('0:1200,1:980'); they replace start-from for partitions the job has no"
                                    + " restored source state for (partitions not listed start at the earliest"
                                    + " offset). train sets them from a backfill's hand-over.");

    public static final ConfigOption<Map<String, String>> STOP_OFFSETS =
            ConfigOptions.key("streamtrain.backfill.stop-offsets")
                    .mapType()
                    .noDefaultValue()
                    .withDescription(
                            "Makes the job a backfill: the batcher ignores every record at or after this"
                                    + " (exclusive) offset of its partition, partition:offset pairs, and closes the"
                                    + " last batch of a partition that reached it. Set by streamtrain backfill.");

    /** What the options accept beyond their types. */
    public static final List<OptionRule<?>> RULES = List.of(
            atLeast(FIELDS, 1),
            atLeast(CROSS_LAYERS, 1),
            atLeast(BATCH_SIZE, 1),
            above(MAX_WAIT, Duration.ZERO),
            atLeast(MAX_BATCHES_IN_FLIGHT, 0),
            atLeast(CREDIT_WAIT, Duration.ZERO),
            above(CREDIT_HARD_CAP, Duration.ZERO),
            above(LAG_REFRESH_INTERVAL, Duration.ZERO),
            above(METRICS_REPORT_INTERVAL, Duration.ZERO),
            atLeast(MODEL_UPDATES_PARTITIONS, 1),
            atLeast(MAX_FEATURES, 1),
            atLeast(VALIDATION_WINDOW, 1),
            atLeast(FEEDBACK_PARTITIONS, 1),
            atLeast(INJECT_FAILURE_AFTER, 0L));

    /**
     * Batches per batcher subtask in flight: {@link #MAX_BATCHES_IN_FLIGHT} as set; unset, 1 for a
     * deep model and the option's default otherwise. A deep model's worker computes a batch for
     * 100-300 ms, and a second batch pulled meanwhile waits through all of it: two in flight
     * doubled deepfm's staleness (steady p50 352 against 187 ms) at the same rate and CPU per
     * example, since at parallelism 2 the other subtasks fill the cores while a worker waits for
     * its next rows (docs/benchmarks.md, "Staleness of the deepfm loop"). An FM's batch takes a few
     * ms, so there the round trip, not the worker, sets the pace, and two in flight keep it busy.
     */
    public static int maxBatchesInFlight(ReadableConfig conf) {
        return conf.getOptional(MAX_BATCHES_IN_FLIGHT)
                .orElse(conf.get(MODEL).isDeep() ? DEEP_MAX_BATCHES_IN_FLIGHT : MAX_BATCHES_IN_FLIGHT.defaultValue());
    }

    /**
     * The model {@code conf} trains: kind, dim and, for the deep kinds, fields, hidden layers and
     * (dcn) cross layers. Cross layers set for another model are an error, not silently ignored.
     */
    public static ModelShape shape(ReadableConfig conf) {
        ModelKind kind = conf.get(MODEL);
        if (!kind.isDeep()) {
            return ModelShape.sparse(kind, conf.get(PsOptions.DIM));
        }
        if (kind != ModelKind.DCN && conf.getOptional(CROSS_LAYERS).isPresent()) {
            throw new IllegalArgumentException(CROSS_LAYERS.key() + " (--cross-layers) is for dcn only, not " + kind);
        }
        return new ModelShape(kind, conf.get(PsOptions.DIM), conf.get(FIELDS), conf.get(HIDDEN),
                kind == ModelKind.DCN ? conf.get(CROSS_LAYERS) : 0);
    }

    /**
     * The batch math the worker trains {@code conf}'s model with: a deep model's tower on PyTorch
     * ({@link TorchTower}); the pure-Java kernel is its parity reference and what export and serving compute with.
     */
    public static BatchModel batchModel(ReadableConfig conf) {
        ModelShape shape = shape(conf);
        return shape.kind().isDeep() ? new DeepModel(shape, TORCH) : shape.batchModel();
    }

    /** A lambda, so that DJL's classes load only where a tower is made, not where the job is built. */
    private static final TowerKernels TORCH = shape -> TorchTower.open(shape);

    /** Partition → offset from a map option's string pairs. */
    public static Map<Integer, Long> partitionOffsets(Map<String, String> pairs) {
        Map<Integer, Long> result = new TreeMap<>();
        pairs.forEach((p, o) -> {
            try {
                result.put(Integer.parseInt(p.trim()), Long.parseLong(o.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("partition:offset pairs must be numbers, got '" + p + ":" + o + "'");
            }
        });
        return result;
    }

    /** The map option's string form of partition → offset. */
    public static Map<String, String> offsetPairs(Map<Integer, Long> offsets) {
        Map<String, String> result = new TreeMap<>();
        offsets.forEach((p, o) -> result.put(Integer.toString(p), Long.toString(o)));
        return result;
    }

    /** The job's Kafka: its bootstrap servers and the user's client properties. */
    /**
     * Adds Kafka client properties over those {@code conf} holds, each under its own key
     * ({@code streamtrain.kafka.properties.sasl.jaas.config}): a whole-map value would be printed
     * and checked as one string, and a secret in it would not be hidden.
     */
    public static void addKafkaProperties(Configuration conf, Map<String, String> properties) {
        Map<String, String> merged = new TreeMap<>(conf.getOptional(KAFKA_PROPERTIES).orElse(Map.of()));
        merged.putAll(properties);
        conf.removeConfig(KAFKA_PROPERTIES);
        merged.forEach((key, value) -> conf.setString(KAFKA_PROPERTIES.key() + "." + key, value));
    }

    public static KafkaConnection kafka(Configuration conf) {
        return new KafkaConnection(conf.get(BOOTSTRAP), conf.getOptional(KAFKA_PROPERTIES).orElse(Map.of()));
    }

    public static String feedbackTopic(Configuration conf) {
        return conf.getOptional(FEEDBACK_TOPIC).orElse(conf.get(TOPIC) + ".feedback");
    }

    /** Where the batcher records its idle cuts: one per feedback topic, as that is one per lineage. */
    public static String cutsTopic(Configuration conf) {
        return feedbackTopic(conf) + ".cuts";
    }

    public static String appliedTopic(Configuration conf) {
        return conf.getOptional(APPLIED_TOPIC).orElse(conf.get(TOPIC) + ".applied");
    }

    public static String metricsTopic(Configuration conf) {
        return conf.getOptional(METRICS_TOPIC).orElse(conf.get(TOPIC) + ".metrics");
    }

    public static String deadLetterTopic(Configuration conf) {
        return conf.getOptional(DEAD_LETTER_TOPIC).orElse(conf.get(TOPIC) + ".dlq");
    }

    public static String examplesGroup(Configuration conf) {
        return conf.get(NAME) + "-examples";
    }

    /** The consumer group a backfill's source commits its progress to (never the streaming one). */
    public static String backfillGroup(Configuration conf) {
        return conf.get(NAME) + "-backfill";
    }

    public static String feedbackGroup(Configuration conf) {
        return conf.get(NAME) + "-feedback";
    }
}
