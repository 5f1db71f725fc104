package io.streamtrain.train.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.flink.api.common.JobID;

/** Reads a running job's checkpoints, restarts and PS metrics from Flink's REST API (local or remote cluster alike). */
public final class JobMonitor {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
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

    public long restarts() throws Exception {
        JsonNode n = get("/jobs/" + job + "/metrics?get=numRestarts");
        return n.isArray() && n.size() > 0 ? n.get(0).path("value").asLong() : 0;
    }

    /**
     * The maximum over the subtasks of the vertex named {@code vertexName} of the first metric whose
     * id ends with {@code suffix}; NaN when the metric is not reported (yet).
     */
    public double maxOfMetric(String vertexName, String suffix) throws Exception {
        for (JsonNode v : get("/jobs/" + job).path("vertices")) {
            if (!v.path("name").asText().contains(vertexName)) {
                continue;
            }
            String base = "/jobs/" + job + "/vertices/" + v.path("id").asText() + "/subtasks/metrics";
            for (JsonNode m : get(base)) {
                String id = m.path("id").asText();
                if (id.endsWith(suffix)) {
                    JsonNode value = get(base + "?agg=max&get=" + URLEncoder.encode(id, StandardCharsets.UTF_8));
                    return value.isArray() && value.size() > 0 ? value.get(0).path("max").asDouble(Double.NaN) : Double.NaN;
                }
            }
        }
        return Double.NaN;
    }

    private JsonNode get(String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(rest.resolve(path)).timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " -> " + resp.statusCode() + ": " + resp.body());
        }
        return JSON.readTree(resp.body());
    }
}
