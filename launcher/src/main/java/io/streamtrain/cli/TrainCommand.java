package io.streamtrain.cli;

import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.Prometheus;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain train}: continuous training on a Flink inside this process, or on a local reactive cluster. */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = "Trains a model continuously from a Kafka topic of Avro examples, exactly once across failures. "
                + "Resumes from the newest retained checkpoint in --checkpoint-dir. The last line is a machine-readable summary.")
public final class TrainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    TrainingJobOptions job;

    @Option(names = "--checkpoint-dir", defaultValue = ".streamtrain/checkpoints", description = "Retained checkpoints (default: ${DEFAULT-VALUE}).")
    Path checkpointDir;

    @Option(names = "--parallelism", defaultValue = "1", description = "Job parallelism on the local Flink (default: ${DEFAULT-VALUE}); on a --cluster the TaskManagers' slots decide.")
    int parallelism;

    @Option(names = "--cluster", paramLabel = "DIR",
            description = "Run on the local reactive cluster in DIR (see `streamtrain cluster start`) instead of a Flink inside this process.")
    Path cluster;

    @Option(names = "--until-idle", converter = DurationConverter.class,
            description = "Stop cleanly once the topic has had no new records for this long (e.g. 10s); default: run until interrupted.")
    Duration untilIdle;

    @Option(names = "--start-from", defaultValue = "earliest", description = "Fresh start position: earliest, latest, committed (default: ${DEFAULT-VALUE}).")
    String startFrom;

    @Option(names = "--from-savepoint", paramLabel = "PATH",
            description = "Start from this savepoint (e.g. a backfill's --out-savepoint: streaming continues exactly where the backfill's range ended) "
                    + "when --checkpoint-dir holds no retained checkpoint yet; later runs resume from their own checkpoints.")
    Path fromSavepoint;

    @Option(names = "--from-checkpoint", paramLabel = "PATH",
            description = "Resume from this retained checkpoint (a chk-N directory) instead of the newest in --checkpoint-dir,"
                    + " e.g. an older one when the newest is damaged.")
    Path fromCheckpoint;

    @Option(names = "--no-resume", description = "Ignore retained checkpoints and start fresh.")
    boolean noResume;

    @Option(names = "--inject-failure-after", defaultValue = "0", description = "Diagnostic: fail one task once after N records.")
    long injectFailureAfter;

    @Option(names = "--prometheus-port", defaultValue = Prometheus.DEFAULT_PORTS, paramLabel = "PORT|FROM-TO|off",
            description = "Flink's Prometheus reporter (metrics.reporter.prom.port): the first free port of the range serves /metrics on 127.0.0.1 (-Dmetrics.reporter.prom.host=0.0.0.0: on every interface; default: ${DEFAULT-VALUE}; off: no reporter).")
    String prometheusPort;

    @Override
    public Integer call() throws Exception {
        TrainingSummary summary = TrainingRun.run(settings());
        System.out.println(summary.line());
        return 0;
    }

    TrainingRun.Settings settings() {
        Configuration conf = Prometheus.enable(job.configuration(), prometheusPort);
        conf.set(TrainingOptions.START_FROM, startFrom);
        conf.set(TrainingOptions.INJECT_FAILURE_AFTER, injectFailureAfter);
        if ((fromCheckpoint != null ? 1 : 0) + (fromSavepoint != null ? 1 : 0) + (noResume ? 1 : 0) > 1) {
            throw new ParameterException(spec.commandLine(), "give at most one of --from-checkpoint, --from-savepoint and --no-resume");
        }
        // A given checkpoint is restored as a savepoint is when the directory holds none: in place of the newest.
        boolean resume = !noResume && fromCheckpoint == null;
        TrainingRun.Settings local = new TrainingRun.Settings(conf, checkpointDir, parallelism, job.checkpointInterval, untilIdle, resume, System.err);
        if (fromSavepoint != null || fromCheckpoint != null) {
            local = local.fromSavepoint(fromCheckpoint != null ? fromCheckpoint : fromSavepoint);
        }
        return cluster == null ? local : local.onCluster(cluster);
    }
}
