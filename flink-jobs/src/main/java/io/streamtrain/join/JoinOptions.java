package io.streamtrain.join;

import static io.streamtrain.options.OptionRule.aboveAtMost;
import static io.streamtrain.options.OptionRule.above;
import static io.streamtrain.options.OptionRule.atLeast;

import io.streamtrain.options.OptionRule;
import io.streamtrain.train.InputFormat;
import io.streamtrain.train.StartFrom;
import io.streamtrain.train.TrainingOptions;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/**
 * Every knob of the joiner job. The flags of {@code streamtrain join} map onto these keys; any
 * other key can be passed as {@code -Dkey=value}. The Kafka bootstrap servers are the training
 * job's key ({@link TrainingOptions#BOOTSTRAP}), so one setting serves both jobs.
 */
public final class JoinOptions {
    private JoinOptions() {}

    public static final ConfigOption<String> BOOTSTRAP = TrainingOptions.BOOTSTRAP;

    public static final ConfigOption<String> IMPRESSIONS_TOPIC =
            ConfigOptions.key("streamtrain.join.impressions-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Input topic of Avro Impression records.");

    public static final ConfigOption<String> CLICKS_TOPIC =
            ConfigOptions.key("streamtrain.join.clicks-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Input topic of Avro Click records. Key clicks by impression id, so an"
                            + " impression's clicks share a partition and keep their order.");

    public static final ConfigOption<String> OUT_TOPIC =
            ConfigOptions.key("streamtrain.join.out-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Output topic of labelled Avro Example records (the training topic).");

    public static final ConfigOption<String> DEAD_LETTER_TOPIC =
            ConfigOptions.key("streamtrain.join.dead-letter-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Dead-letter topic (Avro DeadLetter). Default: <out-topic>.dlq.");

    public static final ConfigOption<String> NAME =
            ConfigOptions.key("streamtrain.join.name")
                    .stringType()
                    .defaultValue("streamtrain-join")
                    .withDescription("Prefix of the joiner's consumer groups and transactional ids.");

    public static final ConfigOption<Duration> WINDOW =
            ConfigOptions.key("streamtrain.join.window")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(15))
                    .withDescription("Attribution window: a click at most this long after its impression (event time)"
                            + " labels it 1; an impression whose window closes without one is labelled 0.");

    public static final ConfigOption<Duration> OUT_OF_ORDERNESS =
            ConfigOptions.key("streamtrain.join.out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription("Watermark delay: how far event times may run out of order within a partition."
                            + " Events later than this behind the watermark are late.");

    public static final ConfigOption<Duration> IDLE_TIMEOUT =
            ConfigOptions.key("streamtrain.join.idle-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription("A partition without records for this long (wall clock) stops holding the"
                            + " watermark back; 0 = never. Ignored with until-end.");

    public static final ConfigOption<Duration> DEDUP_RETENTION =
            ConfigOptions.key("streamtrain.join.dedup-retention")
                    .durationType()
                    .noDefaultValue()
                    .withDescription("How long after its window closes an impression id is remembered, to drop"
                            + " duplicates and tell late clicks from clicks without impression. Default: the window.");

    public static final ConfigOption<Double> NEGATIVE_SAMPLING =
            ConfigOptions.key("streamtrain.join.negative-sampling")
                    .doubleType()
                    .defaultValue(1.0)
                    .withDescription("Fraction of negatives kept, in (0, 1]; chosen by a hash of the impression id, so"
                            + " replays keep the same ones. Kept negatives carry it as Example.sample_rate.");

    public static final ConfigOption<String> MAPPING =
            ConfigOptions.key("streamtrain.join.mapping")
                    .stringType()
                    .defaultValue("builtin:impressions")
                    .withDescription("Feature mapping of impressions (user_id, item_id and context keys): a mapping"
                            + " file or builtin:NAME; the same definition ingest and scoring use.");

    public static final ConfigOption<InputFormat> INPUT_FORMAT =
            ConfigOptions.key("streamtrain.join.input-format")
                    .enumType(InputFormat.class)
                    .defaultValue(InputFormat.EXAMPLE)
                    .withDescription("How both topics' records are written: example (the default) means the project's own"
                            + " Avro Impression and Click records; json, avro and avro-registry are the user's own, read"
                            + " through the mapping, whose \"id\" column names the impression in impressions and clicks"
                            + " alike and whose \"time\" column gives their event time (default: the record's timestamp)."
                            + " Records that do not decode or lack a mapped field go to the dead-letter topic.");

    public static final ConfigOption<String> IMPRESSIONS_SCHEMA =
            ConfigOptions.key("streamtrain.join.impressions-schema")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("An Avro schema file (.avsc) of the impressions: the schema avro records were written"
                            + " with; for avro-registry, the schema to read them as (default: as written).");

    public static final ConfigOption<String> CLICKS_SCHEMA =
            ConfigOptions.key("streamtrain.join.clicks-schema")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("An Avro schema file (.avsc) of the clicks, as streamtrain.join.impressions-schema.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_URL =
            ConfigOptions.key("streamtrain.join.schema-registry-url")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The schema registry of avro-registry topics: the base URL of its Confluent-compatible REST API.");

    public static final ConfigOption<Boolean> UNTIL_END =
            ConfigOptions.key("streamtrain.join.until-end")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Bounded run: read both topics up to their end offsets at start, then close"
                            + " every open window (end of input advances event time to the end) and finish.");

    public static final ConfigOption<StartFrom> START_FROM =
            ConfigOptions.key("streamtrain.join.start-from")
                    .enumType(StartFrom.class)
                    .defaultValue(StartFrom.EARLIEST)
                    .withDescription("Where a fresh job (no checkpoint to resume) starts reading.");

    public static final ConfigOption<Long> INJECT_FAILURE_AFTER =
            ConfigOptions.key("streamtrain.join.inject-failure-after")
                    .longType()
                    .defaultValue(0L)
                    .withDescription("Diagnostic: a joiner task fails once (first attempt only) after this many events and timers, once a"
                            + " checkpoint has completed, so the restart restores from it. 0 = off.");

    /** What the options accept beyond their types. */
    public static final List<OptionRule<?>> RULES = List.of(
            above(WINDOW, Duration.ZERO),
            atLeast(OUT_OF_ORDERNESS, Duration.ZERO),
            atLeast(IDLE_TIMEOUT, Duration.ZERO),
            atLeast(DEDUP_RETENTION, Duration.ZERO),
            aboveAtMost(NEGATIVE_SAMPLING, 0.0, 1.0),
            atLeast(INJECT_FAILURE_AFTER, 0L));

    public static String deadLetterTopic(Configuration conf) {
        return conf.getOptional(DEAD_LETTER_TOPIC).orElse(require(conf, OUT_TOPIC) + ".dlq");
    }

    public static Duration dedupRetention(Configuration conf) {
        return conf.getOptional(DEDUP_RETENTION).orElse(conf.get(WINDOW));
    }

    public static String impressionsGroup(Configuration conf) {
        return conf.get(NAME) + "-impressions";
    }

    public static String clicksGroup(Configuration conf) {
        return conf.get(NAME) + "-clicks";
    }

    public static String require(Configuration conf, ConfigOption<String> option) {
        return conf.getOptional(option).orElseThrow(() -> new IllegalArgumentException("set " + option.key()));
    }
}
