package io.streamtrain.join;

import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.RequiredFlinkSettings;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The impression/click joiner as a Flink application: the main class a JobManager runs for a
 * FlinkDeployment, a FlinkSessionJob or {@code streamtrain join --jobmanager}. Every setting
 * comes from the Flink configuration ({@link RequiredFlinkSettings#forApplication}).
 */
public final class JoinApplication {
    private static final Logger LOG = LoggerFactory.getLogger(JoinApplication.class);

    private JoinApplication() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration conf = RequiredFlinkSettings.forApplication(env, LOG);
        KafkaPreflight.check(TrainingOptions.kafka(conf));
        JoinJob.build(env, conf);
        env.execute(JoinJob.jobName(conf));
    }
}
