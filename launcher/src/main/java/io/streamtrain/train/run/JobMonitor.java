package io.streamtrain.train.run;

import io.streamtrain.contract.ModelStorage;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.messages.webmonitor.ClusterOverview;
import org.apache.flink.runtime.rest.messages.EmptyRequestBody;
import org.apache.flink.runtime.rest.messages.JobExceptionsHeaders;
import org.apache.flink.runtime.rest.messages.JobExceptionsInfoWithHistory;
import org.apache.flink.runtime.rest.messages.JobIDPathParameter;
import org.apache.flink.runtime.rest.messages.JobMessageParameters;
import org.apache.flink.runtime.rest.messages.JobVertexIdPathParameter;
import org.apache.flink.runtime.rest.messages.MessageParameters;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatisticsHeaders;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.metrics.AggregatedMetric;
import org.apache.flink.runtime.rest.messages.job.metrics.AggregatedSubtaskMetricsHeaders;
import org.apache.flink.runtime.rest.messages.job.metrics.AggregatedSubtaskMetricsParameters;
import org.apache.flink.runtime.rest.messages.job.metrics.JobMetricsHeaders;
import org.apache.flink.runtime.rest.messages.job.metrics.JobMetricsMessageParameters;
import org.apache.flink.runtime.rest.messages.job.metrics.JobVertexMetricsHeaders;
import org.apache.flink.runtime.rest.messages.job.metrics.JobVertexMetricsMessageParameters;
import org.apache.flink.runtime.rest.messages.job.metrics.Metric;
import org.apache.flink.runtime.rest.messages.job.metrics.MetricsAggregationParameter;
import org.apache.flink.runtime.rest.messages.job.metrics.MetricsAggregationParameter.AggregationMode;
import org.apache.flink.runtime.rest.messages.job.metrics.MetricsFilterParameter;
import org.apache.flink.runtime.rest.util.RestClientException;
import org.apache.flink.util.ExceptionUtils;

/**
 * A job seen through Flink's REST API (local or remote cluster alike) with Flink's own
 * {@link RestClusterClient}: state, parallelism, checkpoints, restarts, PS metrics. It owns the
 * client's threads and connections: close it.
 */
public final class JobMonitor implements AutoCloseable {
    /** The longest one REST call may take, so that a JobManager that does not answer cannot hang a run. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final URI rest;
    private final JobID job;
    private final RestClusterClient<URI> client;

    public JobMonitor(URI rest, JobID job) throws Exception {
        this(rest, job, client(rest));
    }

    private JobMonitor(URI rest, JobID job, RestClusterClient<URI> client) {
        this.rest = rest;
        this.job = job;
        this.client = client;
    }

    /** {@code latestSizeBytes}: the full state size of the latest checkpoint, not only its incremental delta. */
    public record Checkpoints(long completed, String latestPath, long latestDurationMs, long latestSizeBytes) {}

    public Checkpoints checkpoints() throws Exception {
        CheckpointingStatistics stats = checkpointStatistics();
        CheckpointStatistics.CompletedCheckpointStatistics latest = stats.getLatestCheckpoints().getCompletedCheckpointStatistics();
        return new Checkpoints(
                stats.getCounts().getNumberCompletedCheckpoints(),
                latest == null ? null : latest.getExternalPath(),
                latest == null ? 0 : latest.getDuration(),
                latest == null ? 0 : latest.getStateSize());
    }

    /**
     * The job's state, or empty while the JobManager does not know the job (yet). From the job's
     * details, not {@code getJobStatus}: that answers an unknown job with a 500, not a 404.
     */
    public Optional<JobStatus> state() throws Exception {
        try {
            return Optional.of(details().getJobStatus());
        } catch (JobManagerAnswer e) {
            if (e.status == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * The job's current parallelism: the largest of its vertices' (all are equal in reactive
     * mode); 0 until the job runs (before, the adaptive scheduler reports the maximum it asks for).
     */
    public int parallelism() throws Exception {
        JobDetailsInfo details = details();
        if (details.getJobStatus() != JobStatus.RUNNING) {
            return 0;
        }
        return details.getJobVertexInfos().stream().mapToInt(JobDetailsInfo.JobVertexDetailsInfo::getParallelism).max().orElse(0);
    }

    /** True once every task of the job is running: the job has (re)started, not only been scheduled. */
    public boolean allTasksRunning() throws Exception {
        JobDetailsInfo details = details();
        return details.getJobStatus() == JobStatus.RUNNING && details.getJobVertexInfos().stream()
                .allMatch(v -> v.getTasksPerState().getOrDefault(org.apache.flink.runtime.execution.ExecutionState.RUNNING, 0) == v.getParallelism());
    }

    /** The id of the checkpoint the job last restored from (its latest rescale or recovery), or -1. */
    public long restoredCheckpointId() throws Exception {
        CheckpointingStatistics.RestoredCheckpointStatistics restored = checkpointStatistics().getLatestCheckpoints().getRestoredCheckpointStatistics();
        return restored == null ? -1 : restored.getId();
    }

    /** The root exception the JobManager reports for the job, or null. */
    public String rootException() throws Exception {
        var params = JobExceptionsHeaders.getInstance().getUnresolvedMessageParameters();
        params.jobPathParameter.resolve(job);
        JobExceptionsInfoWithHistory exceptions = await("GET job exceptions",
                client.sendRequest(JobExceptionsHeaders.getInstance(), params, EmptyRequestBody.getInstance()));
        List<JobExceptionsInfoWithHistory.RootExceptionInfo> entries = exceptions.getExceptionHistory().getEntries();
        return entries.isEmpty() ? null : entries.get(0).getStacktrace();
    }

    /** Asks the JobManager to cancel the job (checkpoints are retained on cancellation). */
    public void cancel() throws Exception {
        await("cancel " + job, client.cancel(job));
    }

    /**
     * Stops the job with a savepoint in {@code targetDirectory} (Flink's {@code stop}, without
     * draining: sources stop where they are and nothing sees end-of-input, so every operator's
     * state can be continued) and returns the savepoint's path once it completed.
     */
    public String stopWithSavepoint(Path targetDirectory, Duration timeout) throws Exception {
        CompletableFuture<String> savepoint = client.stopWithSavepoint(
                job, false, ModelStorage.uri(targetDirectory).toString(), SavepointFormatType.CANONICAL);
        try {
            return savepoint.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the savepoint of " + job + " did not complete within " + timeout, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the savepoint failed: " + ExceptionUtils.stringifyException(ExceptionUtils.stripExecutionException(e)), e);
        }
    }

    public long restarts() throws Exception {
        JobMetricsMessageParameters params = JobMetricsHeaders.getInstance().getUnresolvedMessageParameters();
        params.jobPathParameter.resolve(job);
        params.metricsFilterParameter.resolve(List.of("numRestarts"));
        var metrics = await("GET job metrics", client.sendRequest(JobMetricsHeaders.getInstance(), params, EmptyRequestBody.getInstance())).getMetrics();
        return metrics.stream().findFirst().map(Metric::getValue).map(Long::parseLong).orElse(0L);
    }

    /**
     * The maximum over the subtasks of the vertex named {@code vertexName} of the first metric whose
     * id ends with {@code suffix}; NaN when the metric is not reported (yet).
     */
    public double maxOfMetric(String vertexName, String suffix) throws Exception {
        return aggregateOfMetric(vertexName, suffix, AggregationMode.MAX);
    }

    /** As {@link #maxOfMetric}, the sum over the subtasks: for counters. */
    public double sumOfMetric(String vertexName, String suffix) throws Exception {
        return aggregateOfMetric(vertexName, suffix, AggregationMode.SUM);
    }

    private double aggregateOfMetric(String vertexName, String suffix, AggregationMode mode) throws Exception {
        for (JobDetailsInfo.JobVertexDetailsInfo v : details().getJobVertexInfos()) {
            if (!v.getName().contains(vertexName)) {
                continue;
            }
            // Without a metric filter Flink answers the ids of the metrics the subtasks report.
            for (AggregatedMetric available : subtaskMetrics(v.getJobVertexID(), List.of(), List.of())) {
                if (available.getId().endsWith(suffix)) {
                    for (AggregatedMetric m : subtaskMetrics(v.getJobVertexID(), List.of(available.getId()), List.of(mode))) {
                        Double value = mode == AggregationMode.MAX ? m.getMax() : m.getSum();
                        return value == null ? Double.NaN : value;
                    }
                    return Double.NaN;
                }
            }
        }
        return Double.NaN;
    }

    /**
     * The value, as reported, of the metric whose id ends with {@code suffix} at each subtask of the
     * vertex named {@code vertexName} that reports it: for gauges of text, which the aggregated view
     * cannot add up. Empty when none reports it (yet).
     */
    public List<String> subtaskValuesOfMetric(String vertexName, String suffix) throws Exception {
        for (JobDetailsInfo.JobVertexDetailsInfo v : details().getJobVertexInfos()) {
            if (v.getName().contains(vertexName)) {
                // Ids here are "<subtask>.<metric>"; without a filter Flink answers the ids alone.
                List<String> ids = vertexMetrics(v.getJobVertexID(), List.of()).stream()
                        .map(Metric::getId).filter(id -> id.endsWith(suffix)).toList();
                return ids.isEmpty() ? List.of()
                        : vertexMetrics(v.getJobVertexID(), ids).stream().map(Metric::getValue).filter(Objects::nonNull).toList();
            }
        }
        return List.of();
    }

    private java.util.Collection<Metric> vertexMetrics(JobVertexID vertex, List<String> metrics) throws Exception {
        JobVertexMetricsMessageParameters params = JobVertexMetricsHeaders.getInstance().getUnresolvedMessageParameters();
        resolve(params, vertex, metrics);
        return await("GET vertex metrics", client.sendRequest(JobVertexMetricsHeaders.getInstance(), params, EmptyRequestBody.getInstance())).getMetrics();
    }

    private java.util.Collection<AggregatedMetric> subtaskMetrics(JobVertexID vertex, List<String> metrics, List<AggregationMode> modes) throws Exception {
        AggregatedSubtaskMetricsParameters params = AggregatedSubtaskMetricsHeaders.getInstance().getUnresolvedMessageParameters();
        resolve(params, vertex, metrics);
        params.getQueryParameters().forEach(q -> {
            if (q instanceof MetricsAggregationParameter a && !modes.isEmpty()) {
                a.resolve(modes);
            }
        });
        return await("GET subtask metrics", client.sendRequest(AggregatedSubtaskMetricsHeaders.getInstance(), params, EmptyRequestBody.getInstance())).getMetrics();
    }

    /** Resolves the job and vertex of a vertex's metrics request, and its metric filter unless {@code metrics} is empty (then Flink lists the ids). */
    private void resolve(MessageParameters params, JobVertexID vertex, List<String> metrics) {
        params.getPathParameters().forEach(p -> {
            if (p instanceof JobIDPathParameter j) {
                j.resolve(job);
            } else if (p instanceof JobVertexIdPathParameter vp) {
                vp.resolve(vertex);
            }
        });
        params.getQueryParameters().forEach(q -> {
            if (q instanceof MetricsFilterParameter f && !metrics.isEmpty()) {
                f.resolve(metrics);
            }
        });
    }

    /** The cluster's overview: TaskManagers, slots, running jobs. */
    public static ClusterOverview clusterOverview(URI rest) throws Exception {
        try (RestClusterClient<URI> client = client(rest)) {
            return await("GET /overview", client.getClusterOverview());
        }
    }

    /** The job the cluster runs now (reactive clusters run one), if any; the monitor is the caller's to close. */
    public static Optional<JobMonitor> runningJob(URI rest) throws Exception {
        RestClusterClient<URI> client = client(rest);
        try {
            for (JobStatusMessage j : await("GET /jobs/overview", client.listJobs())) {
                if (!j.getJobState().isGloballyTerminalState()) {
                    return Optional.of(new JobMonitor(rest, j.getJobId(), client));
                }
            }
        } catch (Exception e) {
            client.close();
            throw e;
        }
        client.close();
        return Optional.empty();
    }

    public JobID job() {
        return job;
    }

    @Override
    public void close() {
        client.close();
    }

    private JobDetailsInfo details() throws Exception {
        return await("GET job details", client.getJobDetails(job));
    }

    private CheckpointingStatistics checkpointStatistics() throws Exception {
        JobMessageParameters params = CheckpointingStatisticsHeaders.getInstance().getUnresolvedMessageParameters();
        params.jobPathParameter.resolve(job);
        return await("GET job checkpoints", client.sendRequest(CheckpointingStatisticsHeaders.getInstance(), params, EmptyRequestBody.getInstance()));
    }

    /**
     * A client that gives up in about the time one hand-made call took: it waits at most
     * {@link #CALL_TIMEOUT} for a leader and an answer and retries a refused connection only briefly,
     * so the run's own loops (which retry {@link IOException}s) decide how long to keep trying.
     */
    private static RestClusterClient<URI> client(URI rest) throws Exception {
        Configuration conf = new Configuration();
        conf.set(JobManagerOptions.ADDRESS, rest.getHost());
        conf.set(RestOptions.ADDRESS, rest.getHost());
        conf.set(RestOptions.PORT, rest.getPort());
        conf.set(RestOptions.AWAIT_LEADER_TIMEOUT, CALL_TIMEOUT);
        conf.set(RestOptions.CONNECTION_TIMEOUT, Duration.ofSeconds(5));
        conf.set(RestOptions.IDLENESS_TIMEOUT, CALL_TIMEOUT);
        conf.set(RestOptions.RETRY_MAX_ATTEMPTS, 1);
        conf.set(RestOptions.RETRY_DELAY, Duration.ofMillis(200));
        return new RestClusterClient<>(conf, rest);
    }

    /**
     * The answer of one call within {@link #CALL_TIMEOUT}: a JobManager that cannot answer now (see
     * {@link #isTransient}), an unreachable one or a timeout is an {@link IOException} to retry;
     * any other error answer a {@link JobManagerAnswer}.
     */
    private static <T> T await(String what, CompletableFuture<T> call) throws Exception {
        try {
            return call.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new IOException("the JobManager did not answer " + what + " within " + CALL_TIMEOUT, e);
        } catch (ExecutionException e) {
            Throwable cause = ExceptionUtils.stripCompletionException(ExceptionUtils.stripExecutionException(e));
            Optional<RestClientException> answer = ExceptionUtils.findThrowable(cause, RestClientException.class);
            if (answer.isPresent()) {
                int status = answer.get().getHttpResponseStatus().code();
                String body = answer.get().getMessage();
                if (isTransient(status, body)) {
                    throw new IOException("the JobManager cannot answer now: " + what + " -> " + status + ": " + body, cause);
                }
                throw new JobManagerAnswer(what + " -> " + status + ": " + body, status, cause);
            }
            if (ExceptionUtils.findThrowable(cause, IOException.class).isPresent()) {
                throw new IOException("the JobManager at " + what + " is not reachable: " + cause.getMessage(), cause);
            }
            throw cause instanceof Exception ex ? ex : new IllegalStateException(cause);
        }
    }

    /** An error answer of the JobManager, with its HTTP status. */
    static final class JobManagerAnswer extends IllegalStateException {
        final int status;

        JobManagerAnswer(String message, int status, Throwable cause) {
            super(message, cause);
            this.status = status;
        }
    }

    /**
     * Answers to retry, like a refused connection: 503 from a JobManager that is starting or
     * electing its leader, and a 500 whose cause is the JobManager's execution-graph cache losing
     * its fetch (cancelled or timed out) while the job is being rescaled or restarted.
     */
    static boolean isTransient(int code, String body) {
        return code == 503 || code == 504
                || code == 500 && (body.contains("java.util.concurrent.CancellationException")
                        || body.contains("java.util.concurrent.TimeoutException"));
    }
}
