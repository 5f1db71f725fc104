package io.streamtrain.train.run;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.cluster.Signal;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.TopicPartition;

/**
 * The training job on a {@link LocalCluster} in reactive mode: its JobManager process runs the job,
 * the cluster's TaskManagers give it its parallelism. A JobManager that dies is replaced by a new
 * one that resumes from the newest retained checkpoint, as the Kubernetes operator does with
 * last-state upgrades; one that dies before it ever answered is a start-up failure, not replaced.
 */
public final class StandaloneTraining implements TrainingCluster {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration WARN_EVERY = Duration.ofSeconds(30);
    private static final int MAX_REPLACEMENTS = 6;
    private static final Duration REPLACEMENT_WINDOW = Duration.ofMinutes(5);

    private final LocalCluster cluster;
    private final PrintStream out;
    private JobID job;
    private boolean answered;
    private boolean cancelled;
    private long recoveries;
    private long lastWarning;
    private final Deque<Long> replacements = new ArrayDeque<>();
    private boolean gaveUpReplacing;

    public StandaloneTraining(LocalCluster cluster, PrintStream out) {
        this.cluster = cluster;
        this.out = out;
    }

    @Override
    public void start(Configuration conf, Optional<Path> resumeFrom, Map<TopicPartition, Long> feedbackFrom) throws Exception {
        // The application's main computes the feedback start itself (the topic's end, as here).
        job = cluster.startJob(conf, resumeFrom);
        answered = false;
    }

    @Override
    public JobID job() {
        return job;
    }

    @Override
    public URI restAddress() {
        return cluster.restAddress();
    }

    @Override
    public JobStatus status() throws Exception {
        if (cluster.jobManager().isEmpty()) {
            if (cancelled) {
                return JobStatus.CANCELED;
            }
            if (!answered) {
                throw new IllegalStateException("the JobManager exited before it started the job; see "
                        + cluster.layout().logFile("jobmanager") + " and " + cluster.layout().logDir().resolve("jobmanager.out"));
            }
            out.println("train: the JobManager is gone; starting a new one from " + cluster.jobSpec()
                    .flatMap(LocalCluster::latestCheckpoint).map(Path::toString).orElse("the start (no checkpoint yet)"));
            job = cluster.resumeJob();
            answered = false;
            recoveries++;
            return JobStatus.INITIALIZING;
        }
        replaceCrashedTaskManagers();
        warnWithoutTaskManagers();
        try (JobMonitor monitor = monitor()) {
            Optional<JobStatus> state = monitor.state();
            answered |= state.isPresent();
            return state.orElse(JobStatus.INITIALIZING);
        } catch (IOException e) {
            return JobStatus.INITIALIZING; // the JobManager is starting (or busy)
        }
    }

    /** Like a Deployment's pods, a TaskManager that exits on its own is replaced; a crash loop is not fed. */
    private void replaceCrashedTaskManagers() throws IOException {
        long now = System.nanoTime();
        replacements.removeIf(at -> now - at > REPLACEMENT_WINDOW.toNanos());
        if (replacements.size() >= MAX_REPLACEMENTS) {
            if (!gaveUpReplacing) {
                gaveUpReplacing = true;
                out.println("train: " + MAX_REPLACEMENTS + " TaskManagers exited on their own within " + REPLACEMENT_WINDOW.toMinutes()
                        + " min; not replacing more (see the logs in " + cluster.layout().logDir() + ")");
            }
            return;
        }
        gaveUpReplacing = false;
        for (String replaced : cluster.replaceCrashedTaskManagers()) {
            replacements.add(now);
            out.println("train: a TaskManager exited on its own; started a new one in its place (" + replaced + ", see "
                    + cluster.layout().logDir() + ")");
        }
    }

    private void warnWithoutTaskManagers() {
        boolean any = cluster.members().stream().anyMatch(m -> m.alive() && m.index() > 0);
        long now = System.nanoTime();
        if (!any && now - lastWarning > WARN_EVERY.toNanos()) {
            lastWarning = now;
            out.println("train: no TaskManager is running in " + cluster.layout().root()
                    + "; the job waits for slots (`streamtrain cluster add-tm --dir " + cluster.layout().root() + "`)");
        }
    }

    @Override
    public Throwable failureCause() throws Exception {
        String trace;
        try (JobMonitor monitor = monitor()) {
            trace = monitor.rootException();
        }
        // The JobManager's trace, cut to its root cause: the launcher prints one line, the log has the rest.
        return trace == null ? null : new IllegalStateException(rootCauseLine(trace) + " (the whole trace is in "
                + cluster.layout().logFile("jobmanager") + ")");
    }

    /** The last "Caused by:" of a stack trace's text, or its first line. */
    static String rootCauseLine(String trace) {
        String root = trace.lines().findFirst().orElse(trace);
        for (String line : (Iterable<String>) trace.lines()::iterator) {
            if (line.startsWith("Caused by: ")) {
                root = line.substring("Caused by: ".length());
            }
        }
        return root.strip();
    }

    @Override
    public void cancel() throws Exception {
        cancelled = true;
        Optional<ProcessHandle> jm = cluster.jobManager();
        if (jm.isEmpty()) {
            return;
        }
        try (JobMonitor monitor = monitor()) {
            monitor.cancel();
        } catch (Exception e) {
            out.println("train: cancel through REST failed (" + e.getMessage() + "); stopping the JobManager");
            Signal.TERM.send(jm.get());
        }
        // An application cluster shuts down once its job is cancelled.
        long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
        while (jm.get().isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        if (jm.get().isAlive()) {
            Signal.KILL.send(jm.get());
        }
    }

    @Override
    public long jobManagerRecoveries() {
        return recoveries;
    }

    @Override
    public String describe() {
        return "reactive cluster in " + cluster.layout().root() + " (parallelism follows its TaskManagers), web UI " + cluster.restAddress();
    }

    @Override
    public void close() {
        // The cluster outlives the run: its TaskManagers wait for the next job.
    }
}
