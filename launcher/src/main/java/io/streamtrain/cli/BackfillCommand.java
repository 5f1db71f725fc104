package io.streamtrain.cli;

import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.BackfillRange;
import io.streamtrain.train.run.BackfillRun;
import io.streamtrain.train.run.SessionTarget;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code streamtrain backfill}: the training job over a bounded range of history, ending with a savepoint. */
@Command(name = "backfill", mixinStandardHelpOptions = true,
        description = "Replays a bounded range of a Kafka topic (by record time or by offsets) through the same exactly-once "
                + "training pipeline, into a fresh model or one continued from --from-savepoint, and stops with a savepoint in "
                + "--out-savepoint that `train --from-savepoint` continues from without a gap or an overlap. Bad records go to "
                + "the dead-letter topic as in streaming. Prints progress with an ETA; the last line is a machine-readable summary.")
public final class BackfillCommand implements Callable<Integer> {
    @Mixin
    TrainingJobOptions job;

    @ArgGroup(exclusive = true)
    Start start;

    static final class Start {
        @Option(names = "--from", paramLabel = "TIME",
                description = "Start at the first record at or after TIME (ISO-8601 instant, epoch ms, earliest or latest).")
        String time;

        @Option(names = "--from-offsets", paramLabel = "P:O[,P:O…]",
                description = "Start offsets per partition; partitions not listed start at their earliest offset.")
        String offsets;
    }

    @ArgGroup(exclusive = true)
    End end;

    static final class End {
        @Option(names = "--to", paramLabel = "TIME",
                description = "End before the first record at or after TIME (ISO-8601 instant, epoch ms, or latest).")
        String time;

        @Option(names = "--to-offsets", paramLabel = "P:O[,P:O…]",
                description = "End offsets (exclusive) per partition; partitions not listed end at their current end.")
        String offsets;
    }

    @Option(names = "--from-savepoint", paramLabel = "PATH",
            description = "Continue this model: a backfill's --out-savepoint, a savepoint, or a train --checkpoint-dir. "
                    + "Without --from/--from-offsets a backfill continues where that backfill ended.")
    Path fromSavepoint;

    @Option(names = "--out-savepoint", required = true, paramLabel = "DIR",
            description = "Where the final savepoint, model.json and handover.json go.")
    Path outSavepoint;

    @Option(names = "--parallelism", description = "Job parallelism (parallelism.default; default: 1).")
    Integer parallelism;

    @Mixin
    SessionClusterOptions session;

    @Override
    public Integer call() throws Exception {
        TrainingSummary summary = BackfillRun.run(settings());
        System.out.println(summary.line());
        return 0;
    }

    /** {@code P:O[,P:O…]}, read as the offsets options of the job are (a Flink map option). */
    private static Map<Integer, Long> partitionOffsets(String option, String pairs) {
        try {
            return TrainingOptions.partitionOffsets(Configuration.fromMap(Map.of(TrainingOptions.START_OFFSETS.key(), pairs))
                    .get(TrainingOptions.START_OFFSETS));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + pairs + ": expected partition:offset pairs, e.g. 0:1200,1:1180", e);
        }
    }

    BackfillRun.Settings settings() {
        Configuration conf = job.configuration(new Flags().with("--parallelism", CoreOptions.DEFAULT_PARALLELISM, parallelism), System.err::println);
        BackfillRange.Bound from = start == null ? null
                : start.time != null ? BackfillRange.Bound.ofTime(start.time) : BackfillRange.Bound.ofOffsets(partitionOffsets("--from-offsets", start.offsets));
        BackfillRange.Bound to = end == null ? BackfillRange.Bound.ofTime("latest")
                : end.time != null ? BackfillRange.Bound.ofTime(end.time) : BackfillRange.Bound.ofOffsets(partitionOffsets("--to-offsets", end.offsets));
        TrainingRun.Settings training = new TrainingRun.Settings(conf, outSavepoint.resolve("checkpoints"),
                conf.get(CoreOptions.DEFAULT_PARALLELISM), ConfigurationSources.checkpointInterval(conf), null, false, System.err);
        SessionTarget target = session.target();
        if (target != null) {
            training = training.onSession(target);
        }
        return new BackfillRun.Settings(training, from, to, fromSavepoint, outSavepoint);
    }
}
