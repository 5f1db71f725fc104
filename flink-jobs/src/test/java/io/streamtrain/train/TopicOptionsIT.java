package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.kafka.Topics;
import io.streamtrain.testing.KafkaFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/** A job creates its missing topics as streamtrain.topics.* say, and leaves existing ones as they are. */
class TopicOptionsIT {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void missingTopicsGetTheConfiguredSettingsAndExistingOnesAreLeftAlone() throws Exception {
        String topic = "topic-options-" + System.nanoTime();
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.MODEL_UPDATES_TOPIC, topic + ".updates");
        conf.set(TopicOptions.REPLICATION_FACTOR, 1);
        conf.set(TopicOptions.MIN_INSYNC_REPLICAS, 1);
        conf.set(TopicOptions.FEEDBACK_RETENTION, Duration.ofDays(2));
        conf.set(TopicOptions.MODEL_UPDATES_CLEANUP_POLICY, "compact,delete");
        conf.set(TopicOptions.MODEL_UPDATES_RETENTION, Duration.ofDays(9));
        kafka.createTopic(topic + ".metrics", 3); // pre-created by an operator, with its own settings

        try (KafkaProgress progress = new KafkaProgress(kafka.connection())) {
            progress.ensureJobTopics(conf);
        }
        try (Admin admin = Topics.admin(kafka.connection())) {
            Map<String, Config> configs = admin.describeConfigs(List.of(topic + ".feedback", topic + ".applied", topic + ".metrics",
                            topic + ".dlq", topic + ".updates").stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList())
                    .all().get(30, TimeUnit.SECONDS).entrySet().stream()
                    .collect(Collectors.toMap(e -> e.getKey().name(), Map.Entry::getValue));
            assertEquals(String.valueOf(Duration.ofDays(2).toMillis()), value(configs, topic + ".feedback", "retention.ms"));
            assertEquals("1", value(configs, topic + ".feedback", "min.insync.replicas"));
            assertEquals(String.valueOf(Duration.ofHours(1).toMillis()), value(configs, topic + ".applied", "retention.ms"));
            assertEquals(String.valueOf(Duration.ofDays(30).toMillis()), value(configs, topic + ".dlq", "retention.ms"));
            assertEquals("compact,delete", value(configs, topic + ".updates", "cleanup.policy"));
            assertEquals(String.valueOf(Duration.ofDays(9).toMillis()), value(configs, topic + ".updates", "retention.ms"));
            assertEquals(String.valueOf(Duration.ofDays(7).toMillis()), value(configs, topic + ".metrics", "retention.ms"),
                    "the pre-created topic keeps the broker's default, not the job's 30 days");
            assertEquals(3, admin.describeTopics(List.of(topic + ".metrics")).allTopicNames().get().get(topic + ".metrics").partitions().size());
            assertEquals(conf.get(TrainingOptions.FEEDBACK_PARTITIONS),
                    admin.describeTopics(List.of(topic + ".feedback")).allTopicNames().get().get(topic + ".feedback").partitions().size());
            String cuts = topic + ".feedback.cuts";
            assertEquals(String.valueOf(Duration.ofDays(2).toMillis()),
                    admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, cuts))).all().get(30, TimeUnit.SECONDS)
                            .values().iterator().next().get("retention.ms").value(), "the cuts topic lives as long as the feedback");
            assertEquals(conf.get(TrainingOptions.FEEDBACK_PARTITIONS),
                    admin.describeTopics(List.of(cuts)).allTopicNames().get().get(cuts).partitions().size());
        }
    }

    private static String value(Map<String, Config> configs, String topic, String key) {
        return configs.get(topic).get(key).value();
    }
}
