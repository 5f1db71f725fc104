package io.streamtrain.train;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backfill as a Flink application: the training job over the bounded range its configuration
 * gives ({@link TrainingOptions#START_OFFSETS} to {@link TrainingOptions#STOP_OFFSETS}), into a
 * fresh model or the one of the savepoint it is started from (with unclaimed state allowed: the
 * streaming source's state is not the backfill's). The job does not end by itself, since the
 * training loop's feedback source is unbounded: whoever started it stops it with a savepoint once
 * the range is trained ({@code streamtrain backfill --jobmanager} does; on Kubernetes, suspend the
 * FlinkDeployment with upgradeMode savepoint), and {@code train --from-savepoint} continues from it.
 */
public final class BackfillApplication {
    private static final Logger LOG = LoggerFactory.getLogger(BackfillApplication.class);

    private BackfillApplication() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration conf = RequiredFlinkSettings.forApplication(env, LOG);
        if (conf.getOptional(TrainingOptions.STOP_OFFSETS).isEmpty()) {
            throw new IllegalArgumentException("a backfill needs the end of its range: set " + TrainingOptions.STOP_OFFSETS.key()
                    + " (partition:offset pairs, exclusive), and " + TrainingOptions.START_OFFSETS.key() + " for its start"
                    + " (`streamtrain backfill --jobmanager` resolves both from times or offsets)");
        }
        TrainingApplication.execute(env, conf);
    }
}
