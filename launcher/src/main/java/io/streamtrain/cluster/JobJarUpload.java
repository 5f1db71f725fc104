package io.streamtrain.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.flink.api.common.JobID;

/**
 * A job jar on a Flink session cluster, through its REST API as a FlinkSessionJob's operator
 * deploys one: {@code POST /jars/upload}, then {@code POST /jars/<id>/run} with the entry class
 * and the job's settings as Flink configuration, then {@code DELETE /jars/<id>} (the cluster keeps
 * what the job needs in its BLOB store).
 */
public final class JobJarUpload {
    /** The run call executes the application's main on the JobManager, which builds the job. */
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(3);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI rest;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    public JobJarUpload(URI rest) {
        this.rest = rest;
    }

    /**
     * Uploads {@code jar}, runs {@code entryClass} from it with {@code flinkConfiguration}, restored
     * from {@code savepoint} when given, and returns the job's id.
     */
    public JobID run(Path jar, String entryClass, Map<String, String> flinkConfiguration, Optional<String> savepoint,
            boolean allowNonRestoredState) throws IOException, InterruptedException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no job jar at " + jar.toAbsolutePath()
                    + ": build it (`./mvnw -pl flink-jobs -am package`) or give its path with --job-jar");
        }
        String jarId = upload(jar);
        try {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("entryClass", entryClass);
            body.put("flinkConfiguration", flinkConfiguration);
            savepoint.ifPresent(p -> {
                body.put("savepointPath", p);
                body.put("allowNonRestoredState", allowNonRestoredState);
            });
            HttpRequest request = HttpRequest.newBuilder(rest.resolve("/jars/" + jarId + "/run"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                    .timeout(RUN_TIMEOUT)
                    .build();
            return JobID.fromHexString(send(request, "run " + entryClass).path("jobid").asText());
        } finally {
            send(HttpRequest.newBuilder(rest.resolve("/jars/" + jarId)).DELETE().timeout(RUN_TIMEOUT).build(), "delete the uploaded jar");
        }
    }

    /** {@code POST /jars/upload}: the jar as multipart form data; returns the jar's id on the cluster. */
    private String upload(Path jar) throws IOException, InterruptedException {
        String boundary = "streamtrain-" + UUID.randomUUID();
        String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"" + jar.getFileName()
                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
        HttpRequest request = HttpRequest.newBuilder(rest.resolve("/jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.concat(HttpRequest.BodyPublishers.ofString(head),
                        HttpRequest.BodyPublishers.ofFile(jar), HttpRequest.BodyPublishers.ofString("\r\n--" + boundary + "--\r\n")))
                .timeout(RUN_TIMEOUT)
                .build();
        JsonNode response = send(request, "upload " + jar.getFileName());
        if (!"success".equals(response.path("status").asText())) {
            throw new IOException("the JobManager at " + rest + " did not take the jar " + jar + ": " + response);
        }
        return Path.of(response.path("filename").asText()).getFileName().toString();
    }

    private JsonNode send(HttpRequest request, String what) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("the JobManager at " + rest + " refused to " + what + " (HTTP " + response.statusCode() + "): "
                    + response.body());
        }
        return response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
    }
}
