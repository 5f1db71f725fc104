package io.streamtrain.cli;

import io.streamtrain.cluster.FileSystemPlugins;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.config.InvalidSettingsException;
import io.streamtrain.config.SettingsCheck;
import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.train.TrainingOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where a job command's settings come from besides its flags (a picocli mixin), and the one order
 * in which they count: an explicit flag, then {@code -D}, then the Flink configuration file, then
 * the option's default (docs/configuration.md). The result is checked ({@link SettingsCheck})
 * before anything starts.
 */
final class ConfigurationSources {
    /** Flink's default is no checkpoints, and the loop is exactly once only through them. */
    static final Duration LOCAL_CHECKPOINT_INTERVAL = Duration.ofSeconds(2);

    @Mixin
    FlinkSettings given;

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE",
            description = KafkaClientProperties.DESCRIPTION + " Its entries win over -Dstreamtrain.kafka.properties.<key>.")
    Path kafkaProperties;

    /** The environment {@code FLINK_CONF_DIR} is read from. */
    Map<String, String> env = System.getenv();

    /**
     * The configuration file, {@code -D} over it and {@code flags} over both, checked: warnings
     * go to {@code warn}, errors throw with each key, value, flag and what is allowed.
     */
    Configuration resolve(Flags flags, Consumer<String> warn) {
        Configuration conf = given.load(env);
        flags.applyTo(conf);
        addKafkaProperties(conf);
        FileSystemPlugins.initialize(conf); // s3.* settings, checkpoints on s3://
        SettingsCheck.Result checked = SettingsCheck.check(conf);
        checked.warnings().forEach(w -> warn.accept("warning: " + w));
        if (!checked.errors().isEmpty()) {
            List<SettingsCheck.Problem> named = checked.errors().stream()
                    .map(p -> flags.flagOf(p.key()).map(f -> new SettingsCheck.Problem(p.key() + " (" + f + ")", p.value(), p.reason()))
                            .orElse(p))
                    .toList();
            throw new InvalidSettingsException(named);
        }
        return conf;
    }

    /** The {@code --kafka-properties} file's entries over the client properties set so far. */
    private void addKafkaProperties(Configuration conf) {
        TrainingOptions.addKafkaProperties(conf, KafkaClientProperties.load(kafkaProperties));
    }

    /** The retained checkpoints of a local run: the configured directory, or {@code fallback}. */
    static Path checkpointDir(Configuration conf, String fallback) {
        return conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).map(ModelStorage::local)
                .orElse(Path.of(fallback));
    }

    /** A directory flag's value as Flink's directory options take it; null stays null. */
    static String uri(Path dir) {
        return dir == null ? null : ModelStorage.uri(dir).toString();
    }

    /** The checkpoint interval of a local run: the configured one, or {@link #LOCAL_CHECKPOINT_INTERVAL}. */
    static Duration checkpointInterval(Configuration conf) {
        return conf.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL).orElse(LOCAL_CHECKPOINT_INTERVAL);
    }
}
