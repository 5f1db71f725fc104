package io.streamtrain.train;

import io.streamtrain.kafka.KafkaPreflight;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training job as a Flink application: the main class a JobManager runs, in a standalone
 * application cluster (locally through {@code streamtrain train --cluster}, on Kubernetes through
 * the operator's FlinkDeployment) or on a session cluster (a FlinkSessionJob, or
 * {@code streamtrain train --jobmanager}). Every setting comes from the Flink configuration
 * ({@link RequiredFlinkSettings#forApplication}).
 */
public final class TrainingApplication {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingApplication.class);

    private TrainingApplication() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        execute(env, RequiredFlinkSettings.forApplication(env, LOG));
    }

    /** Builds and runs the training job (a backfill when its configuration has stop offsets). */
    static void execute(StreamExecutionEnvironment env, Configuration conf) throws Exception {
        KafkaPreflight.check(TrainingOptions.kafka(conf));
        Map<TopicPartition, Long> feedbackStart;
        try (KafkaProgress kafka = new KafkaProgress(TrainingOptions.kafka(conf))) {
            feedbackStart = kafka.endOffsets(TrainingOptions.feedbackTopic(conf));
        }
        TrainingJob.build(env, conf, feedbackStart);
        env.execute(TrainingJob.jobName(conf));
    }
}
