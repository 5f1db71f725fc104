package io.streamtrain.train.run;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.cluster.ClusterOnlySettings;
import io.streamtrain.cluster.JobJarUpload;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.kafka.common.TopicPartition;

/**
 * A job of the job jar on an existing Flink session cluster: the jar uploaded and its main class
 * run over the REST API ({@link JobJarUpload}), with the run's configuration as the job's Flink
 * configuration, less the settings only the cluster's own configuration can make
 * ({@link ClusterOnlySettings}: file systems and their keys), which it names on the run's output. The main class computes the feedback start itself (the topic's end, as a
 * local run does). The cluster outlives the run.
 */
public final class SessionJob implements TrainingCluster {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    /** How long the session's JobManager may stay unreachable before the run gives up on it. */
    static final Duration UNREACHABLE_LIMIT = Duration.ofMinutes(2);

    private final SessionTarget target;
    private final FlinkApplication application;
    private final PrintStream out;
    private JobID job;
    private long unreachableSince;

    /** {@code out}: the run's output, which names the settings left out of the job's configuration. */
    public SessionJob(SessionTarget target, FlinkApplication application, PrintStream out) {
        this.target = target;
        this.application = application;
        this.out = out;
    }

    @Override
    public void start(Configuration conf, Optional<Path> resumeFrom, Map<TopicPartition, Long> feedbackFrom) throws Exception {
        job = new JobJarUpload(target.rest()).run(target.jobJar(), application.mainClass(), submitted(conf, application, out),
                resumeFrom.map(p -> ModelStorage.uri(p).toString()), conf.get(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE));
    }

    /** The job's Flink configuration as submitted: {@code conf} less the cluster-only settings, which {@code out} is told of by name. */
    static Map<String, String> submitted(Configuration conf, FlinkApplication application, PrintStream out) {
        ClusterOnlySettings.Split settings = ClusterOnlySettings.split(conf.toMap());
        String notice = settings.notice(application.command());
        if (notice != null) {
            out.println(notice);
        }
        return settings.submitted();
    }

    @Override
    public JobID job() {
        return job;
    }

    @Override
    public URI restAddress() {
        return target.rest();
    }

    @Override
    public JobStatus status() throws Exception {
        try (JobMonitor monitor = monitor()) {
            JobStatus status = monitor.state().orElse(JobStatus.INITIALIZING);
            unreachableSince = 0;
            return status;
        } catch (IOException e) {
            // The JobManager is busy or restarting; one that stays away is not this run's to wait for.
            long now = System.nanoTime();
            if (unreachableSince == 0) {
                unreachableSince = now;
            } else if (now - unreachableSince > UNREACHABLE_LIMIT.toNanos()) {
                throw new IOException("the JobManager at " + target.rest() + " has not answered for " + UNREACHABLE_LIMIT.toMinutes()
                        + " min (job " + job + "): " + e.getMessage(), e);
            }
            return JobStatus.INITIALIZING;
        }
    }

    @Override
    public Throwable failureCause() throws Exception {
        String trace;
        try (JobMonitor monitor = monitor()) {
            trace = monitor.rootException();
        }
        return trace == null ? null : new IllegalStateException(StandaloneTraining.rootCauseLine(trace)
                + " (the whole trace is in the JobManager's log at " + target.rest() + ")");
    }

    @Override
    public void cancel() throws Exception {
        try (JobMonitor monitor = monitor()) {
            if (monitor.state().filter(JobStatus::isGloballyTerminalState).isPresent()) {
                return;
            }
            monitor.cancel();
            long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
            while (!monitor.state().map(JobStatus::isGloballyTerminalState).orElse(true) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
        }
    }

    @Override
    public long jobManagerRecoveries() {
        return 0;
    }

    @Override
    public String describe() {
        return "session cluster " + target.rest() + " (" + application.mainClass() + " from " + target.jobJar().getFileName() + ")";
    }

    @Override
    public void close() {
        // The session cluster is not the run's: it stays for the next job.
    }
}
