package io.streamtrain.train.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;

/** A job seen through Flink's REST API (local or remote cluster alike): state, parallelism, checkpoints, restarts, PS metrics. */
public final class JobMonitor {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI rest;
    private final JobID job;

    public JobMonitor(URI rest, JobID job) {
        this.rest = rest;
        this.job = job;
    }

    /** {@code latestSizeBytes}: the full state size of the latest checkpoint, not only its incremental delta. */
    public record Checkpoints(long completed, String latestPath, long latestDurationMs, long latestSizeBytes) {}

    public Checkpoints checkpoints() throws Exception {
        JsonNode n = get("/jobs/" + job + "/checkpoints");
        JsonNode latest = n.path("latest").path("completed");
        return new Checkpoints(
                n.path("counts").path("completed").asLong(),
                latest.isMissingNode() || latest.isNull() ? null : latest.path("external_path").asText(null),
                latest.path("end_to_end_duration").asLong(),
                latest.path("state_size").asLong());
    }

    /** The job's state, or empty while the JobManager does not know the job (yet). */
    public Optional<JobStatus> state() throws Exception {
        HttpResponse<String> resp = send(HttpRequest.newBuilder(rest.resolve("/jobs/" + job)).timeout(Duration.ofSeconds(10)).GET().build());
        if (resp.statusCode() == 404) {
            return Optional.empty();
        }
        return Optional.of(JobStatus.valueOf(parse("/jobs/" + job, resp).path("state").asText()));
    }

    /**
     * The job's current parallelism: the largest of its vertices' (all are equal in reactive
     * mode); 0 until the job runs (before, the adaptive scheduler reports the maximum it asks for).
     */
    public int parallelism() throws Exception {
        JsonNode n = get("/jobs/" + job);
        if (!"RUNNING".equals(n.path("state").asText())) {
            return 0;
        }
        int max = 0;
        for (JsonNode v : n.path("vertices")) {
            max = Math.max(max, v.path("parallelism").asInt());
        }
        return max;
    }

    /** True once every task of the job is running: the job has (re)started, not only been scheduled. */
    public boolean allTasksRunning() throws Exception {
        JsonNode n = get("/jobs/" + job);
        if (!"RUNNING".equals(n.path("state").asText())) {
            return false;
        }
        for (JsonNode v : n.path("vertices")) {
            if (v.path("tasks").path("RUNNING").asInt() != v.path("parallelism").asInt()) {
                return false;
            }
        }
        return true;
    }

    /** The id of the checkpoint the job last restored from (its latest rescale or recovery), or -1. */
    public long restoredCheckpointId() throws Exception {
        return get("/jobs/" + job + "/checkpoints").path("latest").path("restored").path("id").asLong(-1);
    }

    /** The root exception the JobManager reports for the job, or null. */
    public String rootException() throws Exception {
        JsonNode root = get("/jobs/" + job + "/exceptions").path("exceptionHistory").path("entries");
        return root.isArray() && root.size() > 0 ? root.get(0).path("stacktrace").asText(null) : null;
    }

    /** Asks the JobManager to cancel the job (checkpoints are retained on cancellation). */
    public void cancel() throws Exception {
        HttpRequest req = HttpRequest.newBuilder(rest.resolve("/jobs/" + job + "?mode=cancel"))
                .timeout(Duration.ofSeconds(10)).method("PATCH", HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<String> resp = send(req);
        if (resp.statusCode() != 202 && resp.statusCode() != 200) {
            throw new IllegalStateException("cancel " + job + " -> " + resp.statusCode() + ": " + resp.body());
        }
    }

    /**
     * Stops the job with a savepoint in {@code targetDirectory} (Flink's {@code stop}, without
     * draining: sources stop where they are and nothing sees end-of-input, so every operator's
     * state can be continued) and returns the savepoint's path once it completed.
     */
    public String stopWithSavepoint(java.nio.file.Path targetDirectory, Duration timeout) throws Exception {
        String body = JSON.writeValueAsString(java.util.Map.of(
                "targetDirectory", targetDirectory.toAbsolutePath().toUri().toString(),
                "drain", false,
                "formatType", "CANONICAL"));
        HttpRequest req = HttpRequest.newBuilder(rest.resolve("/jobs/" + job + "/stop"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> resp = send(req);
        if (resp.statusCode() != 202 && resp.statusCode() != 200) {
            throw new IllegalStateException("stop " + job + " with a savepoint -> " + resp.statusCode() + ": " + resp.body());
        }
        String trigger = JSON.readTree(resp.body()).path("request-id").asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode n = get("/jobs/" + job + "/savepoints/" + trigger);
            if ("COMPLETED".equals(n.path("status").path("id").asText())) {
                JsonNode op = n.path("operation");
                if (op.has("failure-cause")) {
                    throw new IllegalStateException("the savepoint failed: " + op.path("failure-cause").path("stack-trace").asText());
                }
                return op.path("location").asText();
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the savepoint of " + job + " did not complete within " + timeout);
    }

    public long restarts() throws Exception {
        JsonNode n = get("/jobs/" + job + "/metrics?get=numRestarts");
        return n.isArray() && n.size() > 0 ? n.get(0).path("value").asLong() : 0;
    }

    /**
     * The maximum over the subtasks of the vertex named {@code vertexName} of the first metric whose
     * id ends with {@code suffix}; NaN when the metric is not reported (yet).
     */
    public double maxOfMetric(String vertexName, String suffix) throws Exception {
        return aggregateOfMetric(vertexName, suffix, "max");
    }

    /** As {@link #maxOfMetric}, the sum over the subtasks: for counters. */
    public double sumOfMetric(String vertexName, String suffix) throws Exception {
        return aggregateOfMetric(vertexName, suffix, "sum");
    }

    private double aggregateOfMetric(String vertexName, String suffix, String aggregate) throws Exception {
        for (JsonNode v : get("/jobs/" + job).path("vertices")) {
            if (!v.path("name").asText().contains(vertexName)) {
                continue;
            }
            String base = "/jobs/" + job + "/vertices/" + v.path("id").asText() + "/subtasks/metrics";
            for (JsonNode m : get(base)) {
                String id = m.path("id").asText();
                if (id.endsWith(suffix)) {
                    JsonNode value = get(base + "?agg=" + aggregate + "&get=" + URLEncoder.encode(id, StandardCharsets.UTF_8));
                    return value.isArray() && value.size() > 0 ? value.get(0).path(aggregate).asDouble(Double.NaN) : Double.NaN;
                }
            }
        }
        return Double.NaN;
    }

    /** The cluster's {@code /overview}: TaskManagers, slots, running jobs. */
    public static JsonNode clusterOverview(URI rest) throws Exception {
        return get(rest, "/overview");
    }

    /** The job the cluster runs now (reactive clusters run one), if any. */
    public static Optional<JobMonitor> runningJob(URI rest) throws Exception {
        for (JsonNode j : get(rest, "/jobs/overview").path("jobs")) {
            if (!JobStatus.valueOf(j.path("state").asText()).isGloballyTerminalState()) {
                return Optional.of(new JobMonitor(rest, JobID.fromHexString(j.path("jid").asText())));
            }
        }
        return Optional.empty();
    }

    public JobID job() {
        return job;
    }

    private JsonNode get(String path) throws Exception {
        return get(rest, path);
    }

    private static JsonNode get(URI rest, String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(rest.resolve(path)).timeout(Duration.ofSeconds(10)).GET().build();
        return parse(path, send(req));
    }

    private static HttpResponse<String> send(HttpRequest req) throws Exception {
        return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
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

    private static JsonNode parse(String path, HttpResponse<String> resp) throws Exception {
        if (isTransient(resp.statusCode(), resp.body())) {
            throw new IOException("the JobManager cannot answer now: GET " + path + " -> " + resp.statusCode() + ": " + resp.body());
        }
        if (resp.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " -> " + resp.statusCode() + ": " + resp.body());
        }
        return JSON.readTree(resp.body());
    }
}
