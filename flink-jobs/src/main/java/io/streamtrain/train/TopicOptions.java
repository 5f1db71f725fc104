package io.streamtrain.train;

import static io.streamtrain.options.OptionRule.above;
import static io.streamtrain.options.OptionRule.atLeast;

import io.streamtrain.options.OptionRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * How the training job's own topics are created when they are missing: feedback, applied notices,
 * metrics, dead letters and model updates. Operators may create them beforehand instead (then
 * these options do nothing, and the job's principal needs no right to create topics): docs/security.md
 * lists the {@code kafka-topics} commands and k8s/base/kafka-topics.yaml the Strimzi KafkaTopics.
 */
public final class TopicOptions {
    private TopicOptions() {}

    public static final ConfigOption<Integer> REPLICATION_FACTOR =
            ConfigOptions.key("streamtrain.topics.replication-factor")
                    .intType()
                    .defaultValue(-1)
                    .withDescription("Replication factor of the job's topics when it creates them; -1: the brokers'"
                            + " default.replication.factor. Production: 3.");

    public static final ConfigOption<Integer> MIN_INSYNC_REPLICAS =
            ConfigOptions.key("streamtrain.topics.min-insync-replicas")
                    .intType()
                    .noDefaultValue()
                    .withDescription("min.insync.replicas of the job's topics when it creates them (the job's producers"
                            + " write with acks=all); default: the brokers' min.insync.replicas. Production: 2 with 3 replicas.");

    public static final ConfigOption<Duration> FEEDBACK_RETENTION =
            ConfigOptions.key("streamtrain.topics.feedback.retention")
                    .durationType()
                    .defaultValue(Duration.ofDays(7))
                    .withDescription("retention.ms of the feedback topic (pulls and pushes between the batcher and the PS)."
                            + " A job restored from a checkpoint rereads its feedback from there: keep it above the"
                            + " longest time a job may be down.");

    public static final ConfigOption<Duration> APPLIED_RETENTION =
            ConfigOptions.key("streamtrain.topics.applied.retention")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription("retention.ms of the applied-notice topic: flow control reads it from its end only.");

    public static final ConfigOption<Duration> METRICS_RETENTION =
            ConfigOptions.key("streamtrain.topics.metrics.retention")
                    .durationType()
                    .defaultValue(Duration.ofDays(30))
                    .withDescription("retention.ms of the metrics topic: `report` and `dashboard` read a run from its beginning.");

    public static final ConfigOption<Duration> DEAD_LETTER_RETENTION =
            ConfigOptions.key("streamtrain.topics.dead-letter.retention")
                    .durationType()
                    .defaultValue(Duration.ofDays(30))
                    .withDescription("retention.ms of the dead-letter topic: time to look into rejected records.");

    public static final ConfigOption<String> MODEL_UPDATES_CLEANUP_POLICY =
            ConfigOptions.key("streamtrain.topics.model-updates.cleanup-policy")
                    .stringType()
                    .defaultValue(TopicConfig.CLEANUP_POLICY_COMPACT)
                    .withDescription("cleanup.policy of the model-updates topic: compact (the latest update of every row"
                            + " stays, so `serve --follow` can rebuild a model from the topic alone) or compact,delete"
                            + " (rows not updated within model-updates.retention are dropped too).");

    public static final ConfigOption<Duration> MODEL_UPDATES_RETENTION =
            ConfigOptions.key("streamtrain.topics.model-updates.retention")
                    .durationType()
                    .noDefaultValue()
                    .withDescription("retention.ms of the model-updates topic, with cleanup-policy compact,delete; default:"
                            + " the brokers' log.retention.");

    public static final List<OptionRule<?>> RULES = List.of(
            atLeast(REPLICATION_FACTOR, -1),
            atLeast(MIN_INSYNC_REPLICAS, 1),
            above(FEEDBACK_RETENTION, Duration.ZERO),
            above(APPLIED_RETENTION, Duration.ZERO),
            above(METRICS_RETENTION, Duration.ZERO),
            above(DEAD_LETTER_RETENTION, Duration.ZERO),
            above(MODEL_UPDATES_RETENTION, Duration.ZERO));

    /** The job's topics (besides its input) as it creates them when missing, each with its partitions and topic configs. */
    public static List<NewTopic> jobTopics(Configuration conf) {
        List<NewTopic> topics = new ArrayList<>();
        topics.add(topic(conf, TrainingOptions.feedbackTopic(conf), conf.get(TrainingOptions.FEEDBACK_PARTITIONS),
                retention(conf.get(FEEDBACK_RETENTION))));
        // The cuts topic lives as long as the feedback: a restore rereads both from its checkpoint.
        topics.add(topic(conf, TrainingOptions.cutsTopic(conf), conf.get(TrainingOptions.FEEDBACK_PARTITIONS),
                retention(conf.get(FEEDBACK_RETENTION))));
        topics.add(topic(conf, TrainingOptions.appliedTopic(conf), 1, retention(conf.get(APPLIED_RETENTION))));
        topics.add(topic(conf, TrainingOptions.metricsTopic(conf), 1, retention(conf.get(METRICS_RETENTION))));
        topics.add(topic(conf, TrainingOptions.deadLetterTopic(conf), 1, retention(conf.get(DEAD_LETTER_RETENTION))));
        conf.getOptional(TrainingOptions.MODEL_UPDATES_TOPIC).ifPresent(updates -> {
            Map<String, String> configs = new LinkedHashMap<>();
            configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, conf.get(MODEL_UPDATES_CLEANUP_POLICY));
            conf.getOptional(MODEL_UPDATES_RETENTION).ifPresent(r -> configs.putAll(retention(r)));
            topics.add(topic(conf, updates, conf.get(TrainingOptions.MODEL_UPDATES_PARTITIONS), configs));
        });
        return topics;
    }

    /** A topic a job creates when missing: the replication settings above with {@code configs}. */
    public static NewTopic topic(Configuration conf, String name, int partitions, Map<String, String> configs) {
        Map<String, String> all = new LinkedHashMap<>(configs);
        conf.getOptional(MIN_INSYNC_REPLICAS).ifPresent(n -> all.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(n)));
        return new NewTopic(name, partitions, (short) (int) conf.get(REPLICATION_FACTOR)).configs(all);
    }

    /** The configs of a dead-letter topic (the joiner's too). */
    public static Map<String, String> deadLetterConfigs(Configuration conf) {
        return retention(conf.get(DEAD_LETTER_RETENTION));
    }

    private static Map<String, String> retention(Duration retention) {
        return Map.of(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(retention.toMillis()));
    }
}
