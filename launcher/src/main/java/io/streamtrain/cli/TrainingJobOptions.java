package io.streamtrain.cli;

import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TrainingOptions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Option;

/**
 * The options of the training job itself, shared by {@code train} and {@code backfill} (a picocli
 * mixin): a backfill and the streaming run that continues it must be able to say the same model.
 */
final class TrainingJobOptions {
    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = "--topic", required = true, description = "Training topic (Avro Example records).")
    String topic;

    @Option(names = "--name", defaultValue = "streamtrain", description = "Model name: consumer groups and transactional ids (default: ${DEFAULT-VALUE}).")
    String name;

    @Option(names = "--model", defaultValue = "fm", description = "lr or fm (default: ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--dim", defaultValue = "8", description = "Embedding dimension for fm (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--optimizer", defaultValue = "adagrad", description = "sgd, adagrad, rowwise-adagrad, ftrl or count (default: ${DEFAULT-VALUE}).")
    String optimizer;

    @Option(names = "--learning-rate", description = "Step size (default: 0.05, streamtrain.ps.learning-rate).")
    Double learningRate;

    @Option(names = "--checkpoint-interval", defaultValue = "2s", converter = DurationConverter.class, description = "Checkpoint interval (default: ${DEFAULT-VALUE}).")
    Duration checkpointInterval;

    @Option(names = "--batch-size", defaultValue = "1024", description = "Examples per mini-batch (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @Option(names = "--max-wait", defaultValue = "500ms", converter = DurationConverter.class, description = "Batch max wait (default: ${DEFAULT-VALUE}).")
    Duration maxWait;

    @Option(names = "--min-frequency", defaultValue = "1", description = "Admit a feature's row after this many occurrences (default: ${DEFAULT-VALUE}).")
    int minFrequency;

    @Option(names = "--row-ttl", converter = DurationConverter.class, description = "Expire rows not updated for this long (e.g. 7d).")
    Duration rowTtl;

    @Option(names = "--model-updates-topic", paramLabel = "TOPIC",
            description = "Publish every changed row, exactly once, to this compacted topic for `serve --follow` (streamtrain.train.model-updates-topic; default: off).")
    String modelUpdatesTopic;

    @Option(names = "-D", paramLabel = "KEY=VALUE", description = "Any Flink or streamtrain configuration key.")
    Map<String, String> extra = new LinkedHashMap<>();

    /** The job's configuration: the -D keys, overridden by the named options. */
    Configuration configuration() {
        Configuration conf = Configuration.fromMap(extra);
        conf.set(TrainingOptions.BOOTSTRAP, bootstrap);
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, name);
        conf.set(TrainingOptions.MODEL, model);
        conf.set(TrainingOptions.BATCH_SIZE, batchSize);
        conf.set(TrainingOptions.MAX_WAIT, maxWait);
        conf.set(PsOptions.DIM, dim);
        conf.set(PsOptions.OPTIMIZER, optimizer);
        conf.set(PsOptions.MIN_FREQUENCY, minFrequency);
        if (learningRate != null) {
            conf.set(PsOptions.LEARNING_RATE, learningRate);
        }
        if (rowTtl != null) {
            conf.set(PsOptions.ROW_TTL, rowTtl);
        }
        if (modelUpdatesTopic != null) {
            conf.set(TrainingOptions.MODEL_UPDATES_TOPIC, modelUpdatesTopic);
        }
        return conf;
    }
}
