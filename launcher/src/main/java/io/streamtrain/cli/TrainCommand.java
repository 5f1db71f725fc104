package io.streamtrain.cli;

import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.StartFrom;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.Prometheus;
import io.streamtrain.train.run.SessionTarget;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain train}: continuous training on a Flink inside this process, on a local reactive cluster or on a session cluster. */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = "Trains a model continuously from a Kafka topic of Avro examples, exactly once across failures. "
                + "Resumes from the newest retained checkpoint in --checkpoint-dir. The last line is a machine-readable summary.")
public final class TrainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    private static final String CHECKPOINTS = ".streamtrain/checkpoints";

    @Mixin
    TrainingJobOptions job;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
            description = "Retained checkpoints (execution.checkpointing.dir; default: " + CHECKPOINTS + ").")
    Path checkpointDir;

    @Option(names = "--parallelism",
            description = "Job parallelism on the local Flink (parallelism.default; default: 1); on a --cluster the TaskManagers' slots decide.")
    Integer parallelism;

    @Option(names = "--cluster", paramLabel = "DIR",
            description = "Run on the local reactive cluster in DIR (see `streamtrain cluster start`) instead of a Flink inside this process.")
    Path cluster;

    @Mixin
    SessionClusterOptions session;

    @Option(names = "--until-idle", converter = DurationConverter.class,
            description = "Stop cleanly once the topic has had no new records for this long (e.g. 10s); default: run until interrupted.")
    Duration untilIdle;

    @Option(names = "--start-from", converter = FlinkEnumConverter.StartPositions.class,
            completionCandidates = FlinkEnumConverter.StartPositions.class,
            description = "Fresh start position: ${COMPLETION-CANDIDATES} (streamtrain.train.start-from).")
    StartFrom startFrom;

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

    @Option(names = "--inject-failure-after", description = "Diagnostic: fail one task once after N records (streamtrain.train.inject-failure-after).")
    Long injectFailureAfter;

    @Option(names = "--prometheus-port", defaultValue = Prometheus.DEFAULT_PORTS, paramLabel = "PORT|FROM-TO|off",
            description = "Flink's Prometheus reporter (metrics.reporter.prom.port): the first free port of the range serves /metrics on 127.0.0.1 (-Dmetrics.reporter.prom.host=0.0.0.0: on every interface; default: ${DEFAULT-VALUE}; off: no reporter).")
    String prometheusPort;

    @Option(names = "--print-config",
            description = "Print the configuration the run would use (flags over -D over the Flink configuration file over the defaults), "
                    + "one `key: value` a line, sorted, and exit.")
    boolean printConfig;

    @Override
    public Integer call() throws Exception {
        TrainingRun.Settings settings = settings();
        if (printConfig) {
            EffectiveConfiguration.lines(TrainingRun.flinkConfiguration(settings), List.of(TrainingOptions.class, PsOptions.class))
                    .forEach(spec.commandLine().getOut()::println);
            return 0;
        }
        TrainingSummary summary = TrainingRun.run(settings);
        System.out.println(summary.line());
        return 0;
    }

    TrainingRun.Settings settings() {
        Configuration conf = Prometheus.enable(job.configuration(new Flags()
                .with("--start-from", TrainingOptions.START_FROM, startFrom)
                .with("--inject-failure-after", TrainingOptions.INJECT_FAILURE_AFTER, injectFailureAfter)
                .with("--parallelism", CoreOptions.DEFAULT_PARALLELISM, parallelism)
                .with("--checkpoint-dir", CheckpointingOptions.CHECKPOINTS_DIRECTORY, ConfigurationSources.uri(checkpointDir)),
                        spec.commandLine().getErr()::println),
                prometheusPort);
        if ((fromCheckpoint != null ? 1 : 0) + (fromSavepoint != null ? 1 : 0) + (noResume ? 1 : 0) > 1) {
            throw new ParameterException(spec.commandLine(), "give at most one of --from-checkpoint, --from-savepoint and --no-resume");
        }
        // A given checkpoint is restored as a savepoint is when the directory holds none: in place of the newest.
        boolean resume = !noResume && fromCheckpoint == null;
        TrainingRun.Settings local = new TrainingRun.Settings(conf, ConfigurationSources.checkpointDir(conf, CHECKPOINTS),
                conf.get(CoreOptions.DEFAULT_PARALLELISM), ConfigurationSources.checkpointInterval(conf), untilIdle, resume, System.err);
        if (fromSavepoint != null || fromCheckpoint != null) {
            local = local.fromSavepoint(fromCheckpoint != null ? fromCheckpoint : fromSavepoint);
        }
        SessionTarget target = session.target();
        if (target != null && cluster != null) {
            throw new ParameterException(spec.commandLine(), "give --cluster or --jobmanager, not both");
        }
        return target != null ? local.onSession(target) : cluster == null ? local : local.onCluster(cluster);
    }
}
