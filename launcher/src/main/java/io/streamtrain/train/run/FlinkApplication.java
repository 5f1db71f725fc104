package io.streamtrain.train.run;

import io.streamtrain.join.JoinApplication;
import io.streamtrain.join.JoinJob;
import io.streamtrain.train.BackfillApplication;
import io.streamtrain.train.TrainingApplication;
import io.streamtrain.train.TrainingJob;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;

/**
 * The jobs of the job jar, each with the main class a cluster runs it from (an application
 * cluster's, or a session cluster's {@code /jars/<id>/run}) and the same job built here for a
 * Flink in this JVM.
 */
public enum FlinkApplication {
    TRAINING(TrainingApplication.class, "train"),
    BACKFILL(BackfillApplication.class, "backfill"),
    JOIN(JoinApplication.class, "join");

    private final Class<?> main;
    private final String command;

    FlinkApplication(Class<?> main, String command) {
        this.main = main;
        this.command = command;
    }

    /** The launcher command that runs it, as its output lines begin. */
    public String command() {
        return command;
    }

    public String mainClass() {
        return main.getName();
    }

    /** Adds the job to {@code env}, as the main class does; {@code feedbackFrom}: where a fresh training loop's feedback starts. */
    void build(StreamExecutionEnvironment env, Configuration conf, Map<TopicPartition, Long> feedbackFrom) throws Exception {
        if (this == JOIN) {
            JoinJob.build(env, conf);
        } else {
            TrainingJob.build(env, conf, feedbackFrom);
        }
    }

    String jobName(Configuration conf) {
        return this == JOIN ? JoinJob.jobName(conf) : TrainingJob.jobName(conf);
    }
}
