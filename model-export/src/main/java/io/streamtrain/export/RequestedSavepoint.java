package io.streamtrain.export;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.util.ExceptionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A savepoint of a running training job, taken for one export: the job keeps running, and the
 * savepoint is the export's own, so unlike a retained checkpoint it cannot be subsumed and deleted
 * while the export reads it, however often the job checkpoints. Native format: for RocksDB state a
 * copy of its files, as fast as a full checkpoint. A savepoint the job refuses while it restarts is
 * asked for again until it runs (up to {@link #RECOVERY_PATIENCE}). {@link #close} deletes it.
 */
public final class RequestedSavepoint implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    /** How long a savepoint the job refuses while it restarts is asked for again. */
    private static final Duration RECOVERY_PATIENCE = Duration.ofMinutes(2);
    private static final Logger LOG = LoggerFactory.getLogger(RequestedSavepoint.class);
    /** Below the train --checkpoint-dir, where the cluster can write, but not where train resumes from (its newest checkpoint). */
    public static final String DIRECTORY = "export-savepoints";

    private final Path path;

    private RequestedSavepoint(Path path) {
        this.path = path;
    }

    /**
     * Takes a savepoint of {@code job} (or, when empty, of the one running job named {@code jobName})
     * on the cluster whose REST API is at {@code rest}, into {@code checkpointDir}/{@value #DIRECTORY}.
     */
    public static RequestedSavepoint take(URI rest, Optional<JobID> job, String jobName, Path checkpointDir) throws Exception {
        try (RestClusterClient<URI> client = client(rest)) {
            JobID id = job.isPresent() ? job.get() : runningJob(client, rest, jobName);
            String target = new Path(checkpointDir, DIRECTORY).toUri().toString();
            long retryUntil = System.nanoTime() + RECOVERY_PATIENCE.toNanos();
            for (int attempt = 1; ; attempt++) {
                try {
                    return new RequestedSavepoint(new Path(client.triggerSavepoint(id, target, SavepointFormatType.NATIVE)
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)));
                } catch (TimeoutException e) {
                    throw new IOException("the savepoint of job " + id + " did not complete within " + TIMEOUT, e);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!refusedByTheJob(e) || System.nanoTime() > retryUntil) {
                        throw new IOException("the savepoint of job " + id + " on " + rest + " failed: "
                                + ExceptionUtils.stripExecutionException(e).getMessage(), e);
                    }
                    // The job is restarting (a failover suspends its checkpoint coordinator) or a task
                    // declined: the savepoint succeeds once the job runs again.
                    LOG.warn("the savepoint of job {} failed ({}); trying again while the job recovers (attempt {})", id,
                            ExceptionUtils.stripExecutionException(e).getMessage(), attempt + 1);
                    Thread.sleep(Math.min(5_000, 500L * attempt));
                }
            }
        }
    }

    /**
     * Whether the job itself refused the savepoint (a {@link CheckpointException}: its coordinator
     * suspended by a failover, a task declining). Over REST it arrives as the remote exception's
     * text, so the class name is looked for in the messages as well.
     */
    private static boolean refusedByTheJob(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof CheckpointException || String.valueOf(c.getMessage()).contains(CheckpointException.class.getName())) {
                return true;
            }
        }
        return false;
    }

    private static JobID runningJob(RestClusterClient<URI> client, URI rest, String jobName) throws Exception {
        List<JobStatusMessage> running = client.listJobs().get(1, TimeUnit.MINUTES).stream()
                .filter(j -> !j.getJobState().isGloballyTerminalState() && j.getJobName().equals(jobName))
                .toList();
        if (running.size() != 1) {
            throw new IllegalArgumentException((running.isEmpty() ? "no running job" : running.size() + " running jobs") + " named '"
                    + jobName + "' on " + rest + (running.isEmpty() ? "" : ": " + running.stream().map(j -> j.getJobId().toString()).toList())
                    + "; give the job with --job ID");
        }
        return running.get(0).getJobId();
    }

    private static RestClusterClient<URI> client(URI rest) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestOptions.ADDRESS, rest.getHost());
        conf.set(RestOptions.PORT, rest.getPort());
        return new RestClusterClient<>(conf, rest);
    }

    public Path path() {
        return path;
    }

    @Override
    public void close() throws IOException {
        path.getFileSystem().delete(path, true);
    }
}
