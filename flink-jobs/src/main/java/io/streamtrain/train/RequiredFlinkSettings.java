package io.streamtrain.train;

import io.streamtrain.config.SettingsCheck;
import io.streamtrain.ps.KeyGroups;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBNativeMetricOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.rocksdb.CompressionType;
import org.slf4j.Logger;

/**
 * The Flink settings the training and join jobs rely on, whatever cluster runs them: the one list
 * that every way a job starts applies (the command line, the application cluster's
 * {@link TrainingApplication}, SQL sessions and the SQL gateway), and that the Kubernetes manifests
 * carry ({@code K8sRequiredSettingsTest}). A forced setting is set whatever the configuration
 * says; the others are defaults, set unless the user chose otherwise.
 */
public final class RequiredFlinkSettings {
    /**
     * One required setting; {@code forced} when the job cannot work with another value. A default
     * with {@code partOf} belongs to that option's choice: it is left out when the user made it.
     */
    public record Setting<T>(ConfigOption<T> option, T value, boolean forced, ConfigOption<?> partOf) {
        void applyTo(Configuration given, Configuration c) {
            if (forced || !given.contains(option) && (partOf == null || !given.contains(partOf))) {
                c.set(option, value);
            }
        }

        /** Whether {@code text}, as a configuration file writes it, is this setting's value. */
        public boolean isValue(String text) {
            try {
                return Objects.equals(value, Configuration.fromMap(Map.of(option.key(), text)).get(option));
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
    }

    public static final List<Setting<?>> SETTINGS = List.of(
            // Export reads the checkpoints a cancelled job leaves behind.
            forced(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION),
            // Unaligned: an aligned barrier stops the PS's push input until the batcher's barrier has come
            // through the records queued before it, and every push in flight waits through that
            // (docs/decisions/0005-unaligned-checkpoints.md). The loop is exactly once either way: the worker snapshots its
            // half-assembled batches (WaitingBatches).
            byDefault(CheckpointingOptions.ENABLE_UNALIGNED, true),
            byDefault(StateBackendOptions.STATE_BACKEND, "rocksdb"),
            byDefault(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true),
            byDefault(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 3),
            // Network buffers flushed within 5 ms, not Flink's 100: a batch crosses two shuffles (pull to
            // PS, rows to worker) before its gradient exists, and below capacity its last, partly filled
            // buffer would wait for the flusher at each (docs/decisions/0008-low-latency-settings.md).
            byDefault(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(5)),
            // Timers on the heap: the PS's notice flush and the batcher's max-wait timers are set many
            // times a second, and RocksDB timers cost a write each (seen in profiles); there are few of them.
            byDefault(RocksDBOptions.TIMER_SERVICE_FACTORY, EmbeddedRocksDBStateBackend.PriorityQueueStateType.HEAP),
            // Bloom filters: a new row's first lookup misses every level; without them it reads each one
            // (the PS's row lookups took 3x longer in a profile).
            byDefault(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true),
            // No block compression: rows are mostly random floats, which Snappy (Flink's default) does not
            // shrink (checkpoints were the same size), yet it cost a sixth of a core in compaction and flushes.
            byDefault(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL, List.of(CompressionType.NO_COMPRESSION)),
            // The PS's row count as a metric: RocksDB's estimate of the keys of its "rows" state.
            byDefault(RocksDBNativeMetricOptions.ESTIMATE_NUM_KEYS, true),
            byDefault(RocksDBNativeMetricOptions.COLUMN_FAMILY_AS_VARIABLE, true),
            // Restarts with growing delays, and a limit: a failure that comes back within 20 s of each of
            // 5 restarts (a bad setting, a damaged checkpoint) fails the job, and the run ends with its
            // cause, in about half a minute. A job that ran 20 s since its last restart starts the count
            // afresh, so lost TaskManagers (chaos kills one every 30 s) are recovered without end.
            // A user who chose a strategy gets none of these.
            byDefault(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay"),
            restartDefault(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, Duration.ofSeconds(1)),
            restartDefault(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, 2.0),
            restartDefault(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, Duration.ofSeconds(10)),
            restartDefault(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD, Duration.ofSeconds(20)),
            restartDefault(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS, 5),
            // The PS's buckets are the job's key groups, so their number must be known when the job is built.
            byDefault(PipelineOptions.MAX_PARALLELISM, KeyGroups.DEFAULT_MAX_PARALLELISM));

    private RequiredFlinkSettings() {}

    /** {@code conf} with the required settings: the forced ones always, the others where it has none. */
    public static Configuration apply(Configuration conf) {
        Configuration c = new Configuration(conf);
        if (c.contains(PipelineOptions.MAX_PARALLELISM) && c.get(PipelineOptions.MAX_PARALLELISM) <= 0) {
            c.removeConfig(PipelineOptions.MAX_PARALLELISM); // Flink's "not set"
        }
        Configuration given = new Configuration(c);
        SETTINGS.forEach(s -> s.applyTo(given, c));
        return c;
    }

    /**
     * The settings of a Flink application's job (its main runs on the JobManager): the cluster's
     * Flink configuration, where the streamtrain keys sit beside Flink's own, checked
     * ({@link SettingsCheck}) so that a bad value fails the application at once with its key, not
     * in a restart loop, with the required settings applied; {@code env} is configured with them.
     */
    public static Configuration forApplication(StreamExecutionEnvironment env, Logger log) {
        Configuration given = Configuration.fromMap(env.getConfiguration().toMap());
        SettingsCheck.check(given).orThrow().warnings().forEach(log::warn);
        Configuration conf = apply(given);
        env.configure(conf);
        return conf;
    }

    private static <T> Setting<T> forced(ConfigOption<T> option, T value) {
        return new Setting<>(option, value, true, null);
    }

    private static <T> Setting<T> byDefault(ConfigOption<T> option, T value) {
        return new Setting<>(option, value, false, null);
    }

    private static <T> Setting<T> restartDefault(ConfigOption<T> option, T value) {
        return new Setting<>(option, value, false, RestartStrategyOptions.RESTART_STRATEGY);
    }
}
