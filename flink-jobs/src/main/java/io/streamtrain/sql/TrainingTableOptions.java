package io.streamtrain.sql;

import static io.streamtrain.options.OptionRule.atLeast;

import io.streamtrain.config.SettingsCheck;
import io.streamtrain.options.OptionRule;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TopicOptions;
import io.streamtrain.train.TrainingOptions;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;

/**
 * The options of a {@code 'connector' = 'streamtrain'} table: the training job's own options
 * ({@link TrainingOptions}, {@link PsOptions}) under their short names ({@code streamtrain.train.model}
 * is {@code 'model'}, {@code streamtrain.ps.dim} is {@code 'dim'}, {@code streamtrain.kafka.bootstrap-servers}
 * is {@code 'kafka.bootstrap-servers'}, {@code streamtrain.topics.feedback.retention} is
 * {@code 'topics.feedback.retention'}), plus the table's own: how columns become features and the
 * staging topic's partitions. One set of definitions, so defaults and descriptions cannot drift.
 * Kafka client properties are {@code 'properties.<key>'}, as in Flink's Kafka connector, over the
 * session's {@code streamtrain.kafka.properties.<key>}.
 */
public final class TrainingTableOptions {
    public static final ConfigOption<String> MAPPING =
            ConfigOptions.key("mapping")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("How the query's columns become features: builtin:NAME or a feature-mapping JSON"
                            + " file (the one ingest, join and scoring use). Default: column 'label' is the label and every"
                            + " other column is one field, numbered by position: strings, integers and booleans hashed"
                            + " as categoricals, floating-point and decimal columns numeric, arrays multi-valued.");

    public static final ConfigOption<Integer> STAGING_PARTITIONS =
            ConfigOptions.key("staging-partitions")
                    .intType()
                    .defaultValue(4)
                    .withDescription("Partitions of the staging topic ('topic', default <table>.examples) when the sink"
                            + " creates it: the query's rows are written there as Avro Examples, exactly once, and"
                            + " the training loop in the same job reads them; partitions are its units of parallelism.");

    /** {@code 'properties.<key>'}: a Kafka client property of every client the table's job makes ({@link TrainingOptions#KAFKA_PROPERTIES}). */
    public static final String KAFKA_PROPERTIES_PREFIX = "properties.";

    /**
     * Training options that a table does not set: where the loop's source starts is the sink's
     * business, and Kafka client properties are given one key each ({@link #KAFKA_PROPERTIES_PREFIX}).
     */
    private static final Set<String> NOT_FOR_TABLES = Set.of(TrainingOptions.START_FROM.key(), TrainingOptions.START_OFFSETS.key(),
            TrainingOptions.STOP_OFFSETS.key(), TrainingOptions.KAFKA_PROPERTIES.key());

    /** Short table key → the training option it sets. */
    private static final Map<String, ConfigOption<?>> TRAINING = trainingOptions();

    private TrainingTableOptions() {}

    /** Every option a streamtrain table accepts, for the factory (values are checked by {@link #trainingConfiguration}). */
    public static Set<ConfigOption<?>> tableOptions() {
        Set<ConfigOption<?>> options = TRAINING.entrySet().stream()
                .map(e -> ConfigOptions.key(e.getKey()).stringType().noDefaultValue().withDescription(e.getValue().description()))
                .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
        options.add(MAPPING);
        options.add(STAGING_PARTITIONS);
        return options;
    }

    /** What the table's own options accept beyond their types. */
    public static final List<OptionRule<?>> RULES = List.of(atLeast(STAGING_PARTITIONS, 1));

    /**
     * The training job's configuration from a table's options, checked as the command line's is
     * ({@link SettingsCheck}), so a bad value fails the statement with the table key in the message.
     *
     * @param sessionKafkaProperties the session's Kafka client properties ({@code streamtrain.kafka.properties.<key>},
     *     e.g. from {@code sql-gateway --kafka-properties}): every client of the job gets them, the table's
     *     {@code 'properties.<key>'} win over them
     */
    public static Configuration trainingConfiguration(Map<String, String> tableOptions, Map<String, String> sessionKafkaProperties,
            String tableName) {
        Map<String, String> settings = new HashMap<>();
        Map<String, String> tableKeys = new HashMap<>();
        sessionKafkaProperties.forEach((key, value) -> {
            String property = TrainingOptions.KAFKA_PROPERTIES.key() + "." + key;
            settings.put(property, value);
            tableKeys.put(property, property);
        });
        tableOptions.forEach((key, value) -> {
            if (key.startsWith(KAFKA_PROPERTIES_PREFIX)) {
                String property = TrainingOptions.KAFKA_PROPERTIES.key() + "." + key.substring(KAFKA_PROPERTIES_PREFIX.length());
                settings.put(property, value);
                tableKeys.put(property, key);
                return;
            }
            ConfigOption<?> option = TRAINING.get(key);
            if (option != null) {
                settings.put(option.key(), value);
                tableKeys.put(option.key(), key);
            }
        });
        List<SettingsCheck.Problem> errors = SettingsCheck.check(settings).errors();
        if (!errors.isEmpty()) {
            throw new ValidationException("streamtrain table " + tableName + ": " + errors.stream()
                    .map(p -> "option '" + tableKeys.get(p.key()) + "' (" + p + ")")
                    .collect(Collectors.joining("; ")));
        }
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.NAME, tableName);
        conf.set(TrainingOptions.TOPIC, tableName + ".examples");
        conf.addAll(Configuration.fromMap(settings));
        return conf;
    }

    /** {@code streamtrain.train.batch-size} → {@code batch-size}; {@code streamtrain.kafka.x} → {@code kafka.x}. */
    static String tableKey(ConfigOption<?> option) {
        String key = option.key().substring("streamtrain.".length());
        for (String group : List.of("train.", "ps.")) {
            if (key.startsWith(group)) {
                return key.substring(group.length());
            }
        }
        return key;
    }

    private static Map<String, ConfigOption<?>> trainingOptions() {
        Map<String, ConfigOption<?>> byTableKey = new LinkedHashMap<>();
        for (Class<?> holder : List.of(TrainingOptions.class, PsOptions.class, TopicOptions.class)) {
            for (java.lang.reflect.Field f : holder.getFields()) {
                if (f.getType() != ConfigOption.class) {
                    continue;
                }
                ConfigOption<?> option;
                try {
                    option = (ConfigOption<?>) f.get(null);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
                if (NOT_FOR_TABLES.contains(option.key())) {
                    continue;
                }
                ConfigOption<?> clash = byTableKey.put(tableKey(option), option);
                if (clash != null) {
                    throw new IllegalStateException("table key " + tableKey(option) + " names both " + clash.key() + " and " + option.key());
                }
            }
        }
        return byTableKey;
    }

}
