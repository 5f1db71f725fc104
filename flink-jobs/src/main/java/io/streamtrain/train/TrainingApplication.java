package io.streamtrain.train;

import io.streamtrain.config.SettingsCheck;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training job as a Flink application: the main class a standalone application cluster's
 * JobManager runs (locally through {@code streamtrain train --cluster}, on Kubernetes through the
 * operator's FlinkDeployment). Every setting comes from the cluster's Flink configuration, where
 * the streamtrain keys sit beside Flink's own; they are checked ({@link SettingsCheck}) before the
 * job is built, so a bad value fails the application at once with its key, not in a restart loop.
 */
public final class TrainingApplication {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingApplication.class);

    private TrainingApplication() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration given = Configuration.fromMap(env.getConfiguration().toMap());
        SettingsCheck.check(given).orThrow().warnings().forEach(LOG::warn);
        Configuration conf = RequiredFlinkSettings.apply(given);
        env.configure(conf);
        Map<TopicPartition, Long> feedbackStart;
        try (KafkaProgress kafka = new KafkaProgress(TrainingOptions.kafka(conf))) {
            feedbackStart = kafka.endOffsets(TrainingOptions.feedbackTopic(conf));
        }
        TrainingJob.build(env, conf, feedbackStart);
        env.execute(TrainingJob.jobName(conf));
    }
}
