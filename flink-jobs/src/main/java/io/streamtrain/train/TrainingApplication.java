package io.streamtrain.train;

import io.streamtrain.train.KafkaProgress;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;

/**
 * The training job as a Flink application: the main class a standalone application cluster's
 * JobManager runs (locally through {@code streamtrain train --cluster}, on Kubernetes through the
 * operator's FlinkDeployment). Every setting comes from the cluster's Flink configuration, where
 * the streamtrain keys sit beside Flink's own.
 */
public final class TrainingApplication {
    private TrainingApplication() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration conf = TrainingJob.withRequiredSettings(Configuration.fromMap(env.getConfiguration().toMap()));
        env.configure(conf);
        Map<TopicPartition, Long> feedbackStart;
        try (KafkaProgress kafka = new KafkaProgress(TrainingOptions.kafka(conf))) {
            feedbackStart = kafka.endOffsets(TrainingOptions.feedbackTopic(conf));
        }
        TrainingJob.build(env, conf, feedbackStart);
        env.execute(TrainingJob.jobName(conf));
    }
}
