package io.streamtrain.cli;

import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.DenseOptimizerKind;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.train.InputFormat;
import io.streamtrain.train.TrainingOptions;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of the training job itself, shared by {@code train} and {@code backfill} (a picocli
 * mixin): a backfill and the streaming run that continues it must be able to say the same model.
 * Each flag sets the option named in its description and has no default of its own: an option's
 * value is the flag's, else {@code -D}'s, else the Flink configuration file's, else its default
 * (docs/configuration.md).
 */
final class TrainingJobOptions {
    @Mixin
    ConfigurationSources sources;

    @Option(names = "--bootstrap", description = "Kafka bootstrap servers (streamtrain.kafka.bootstrap-servers).")
    String bootstrap;

    @Option(names = "--topic", description = "Training topic (streamtrain.train.topic); required, here or as a setting.")
    String topic;

    @Option(names = "--name", description = "Model name: consumer groups and transactional ids (streamtrain.train.name).")
    String name;

    @Option(names = "--model", converter = FlinkEnumConverter.Models.class, completionCandidates = FlinkEnumConverter.Models.class,
            description = "${COMPLETION-CANDIDATES} (streamtrain.train.model).")
    ModelKind model;

    @Option(names = "--dim", description = "Embedding dimension for fm and the deep models (streamtrain.ps.dim).")
    Integer dim;

    @Option(names = "--fields", description = "Deep models: fields 0..N-1 feed the dense tower (streamtrain.train.fields).")
    Integer fields;

    @Option(names = "--hidden", split = ",", paramLabel = "WIDTH",
            description = "Deep models: MLP hidden layer widths, e.g. 256,128,64 (streamtrain.train.hidden).")
    List<Integer> hidden;

    @Option(names = "--cross-layers", description = "dcn: cross layers beside the MLP (streamtrain.train.cross-layers).")
    Integer crossLayers;

    @Option(names = "--dense-optimizer", converter = FlinkEnumConverter.DenseOptimizers.class,
            completionCandidates = FlinkEnumConverter.DenseOptimizers.class,
            description = "Deep models: ${COMPLETION-CANDIDATES} for the dense parameters (streamtrain.ps.dense-optimizer).")
    DenseOptimizerKind denseOptimizer;

    @Option(names = "--dense-learning-rate", description = "Deep models: the dense optimizer's step size (streamtrain.ps.dense-learning-rate).")
    Double denseLearningRate;

    @Option(names = "--optimizer", converter = FlinkEnumConverter.Optimizers.class, completionCandidates = FlinkEnumConverter.Optimizers.class,
            description = "${COMPLETION-CANDIDATES} (streamtrain.ps.optimizer).")
    OptimizerKind optimizer;

    @Option(names = "--learning-rate", description = "Step size (streamtrain.ps.learning-rate).")
    Double learningRate;

    @Option(names = "--checkpoint-interval", converter = DurationConverter.class,
            description = "Checkpoint interval (execution.checkpointing.interval; a local run's default: 2 s).")
    Duration checkpointInterval;

    @Option(names = "--batch-size", description = "Examples per mini-batch (streamtrain.train.batch-size).")
    Integer batchSize;

    @Option(names = "--max-wait", converter = DurationConverter.class, description = "Batch max wait (streamtrain.train.max-wait).")
    Duration maxWait;

    @Option(names = "--min-frequency", description = "Admit a feature's row after this many occurrences (streamtrain.ps.min-frequency).")
    Integer minFrequency;

    @Option(names = "--row-ttl", converter = DurationConverter.class, description = "Expire rows not updated for this long, e.g. 7d (streamtrain.ps.row-ttl).")
    Duration rowTtl;

    @Option(names = "--model-updates-topic", paramLabel = "TOPIC",
            description = "Publish every changed row, versioned, as the PS applies it, to this compacted topic for `serve --follow` (streamtrain.train.model-updates-topic; default: off).")
    String modelUpdatesTopic;

    @Option(names = "--input-format", converter = FlinkEnumConverter.InputFormats.class, completionCandidates = FlinkEnumConverter.InputFormats.class,
            description = "How the topic's records are written: ${COMPLETION-CANDIDATES} (streamtrain.train.input-format; default: example)."
                    + " json, avro and avro-registry read the user's records through --mapping.")
    InputFormat inputFormat;

    @Option(names = "--mapping", paramLabel = "FILE",
            description = "Feature mapping of a json, avro or avro-registry topic, as ingest reads it (streamtrain.train.mapping).")
    String mapping;

    @Option(names = "--reader-schema", paramLabel = "FILE.avsc",
            description = "avro: the records' schema; avro-registry: the schema to read every record as (streamtrain.train.reader-schema).")
    String readerSchema;

    @Option(names = "--schema-registry", paramLabel = "URL",
            description = "avro-registry: the registry's Confluent-compatible REST API (streamtrain.train.schema-registry-url).")
    String schemaRegistry;

    /** The job's flags that were given, each with its option. */
    Flags flags() {
        return new Flags()
                .with("--bootstrap", TrainingOptions.BOOTSTRAP, bootstrap)
                .with("--topic", TrainingOptions.TOPIC, topic)
                .with("--name", TrainingOptions.NAME, name)
                .with("--model", TrainingOptions.MODEL, model)
                .with("--fields", TrainingOptions.FIELDS, fields)
                .with("--hidden", TrainingOptions.HIDDEN, hidden)
                .with("--cross-layers", TrainingOptions.CROSS_LAYERS, crossLayers)
                .with("--batch-size", TrainingOptions.BATCH_SIZE, batchSize)
                .with("--max-wait", TrainingOptions.MAX_WAIT, maxWait)
                .with("--model-updates-topic", TrainingOptions.MODEL_UPDATES_TOPIC, modelUpdatesTopic)
                .with("--input-format", TrainingOptions.INPUT_FORMAT, inputFormat)
                .with("--mapping", TrainingOptions.MAPPING, mapping)
                .with("--reader-schema", TrainingOptions.READER_SCHEMA, readerSchema)
                .with("--schema-registry", TrainingOptions.SCHEMA_REGISTRY_URL, schemaRegistry)
                .with("--dim", PsOptions.DIM, dim)
                .with("--optimizer", PsOptions.OPTIMIZER, optimizer)
                .with("--learning-rate", PsOptions.LEARNING_RATE, learningRate)
                .with("--dense-optimizer", PsOptions.DENSE_OPTIMIZER, denseOptimizer)
                .with("--dense-learning-rate", PsOptions.DENSE_LEARNING_RATE, denseLearningRate)
                .with("--min-frequency", PsOptions.MIN_FREQUENCY, minFrequency)
                .with("--row-ttl", PsOptions.ROW_TTL, rowTtl)
                .with("--checkpoint-interval", CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
    }

    /** The job's configuration from every source, with {@code commandFlags} among the flags; checked. */
    Configuration configuration(Flags commandFlags, Consumer<String> warn) {
        Configuration conf = sources.resolve(flags().with(commandFlags), warn);
        if (conf.getOptional(TrainingOptions.TOPIC).isEmpty()) {
            throw new IllegalArgumentException("no training topic: give --topic, or set " + TrainingOptions.TOPIC.key());
        }
        return conf;
    }
}
