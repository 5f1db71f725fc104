package io.streamtrain.ingest.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A schema registry's REST API, as far as a reader needs it: the schema registered under an id
 * ({@code GET <url>/schemas/ids/<id>}, Confluent's API, which Apicurio Registry also serves under
 * {@code /apis/ccompat/v7}). A registry that does not answer, or answers with a server error, is
 * asked again with a growing pause for up to two minutes, so a registry restart does not fail the
 * reader; a 404 means the id is unknown.
 */
final class SchemaRegistry implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistry.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PATIENCE = Duration.ofMinutes(2);
    private static final long MAX_PAUSE_MS = 5_000;

    private final String url;
    private transient HttpClient http;

    SchemaRegistry(String url) {
        URI uri = URI.create(url);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            throw new IllegalArgumentException("schema registry URL " + url + " is not an http(s) URL");
        }
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** A registered schema: its type ({@code AVRO}, {@code PROTOBUF}, {@code JSON}) and its text. */
    record Registered(String type, String text) {}

    String url() {
        return url;
    }

    /**
     * The schema registered under {@code id}; empty when the registry has no such id.
     *
     * @throws IOException when the registry did not answer within two minutes, or answered what is
     *     not a schema registry's answer (a wrong URL)
     */
    Optional<Registered> schema(int id) throws IOException, InterruptedException {
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/schemas/ids/" + id))
                .timeout(REQUEST_TIMEOUT).header("Accept", "application/json").GET().build();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        long pauseMs = 250;
        while (true) {
            String problem;
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 404) {
                    return Optional.empty();
                }
                if (response.statusCode() == 200) {
                    return Optional.of(registered(id, response.body()));
                }
                if (response.statusCode() < 500) {
                    throw new IOException("GET " + request.uri() + " answered " + response.statusCode() + ": " + response.body());
                }
                problem = "HTTP " + response.statusCode();
            } catch (java.net.ConnectException | java.net.http.HttpTimeoutException e) {
                problem = e.toString();
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("no answer from " + request.uri() + " for " + PATIENCE.toSeconds() + " s (last: " + problem + ")");
            }
            LOG.warn("schema registry at {} unavailable ({}); asking again in {} ms", url, problem, pauseMs);
            Thread.sleep(pauseMs);
            pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
        }
    }

    private Registered registered(int id, String body) throws IOException {
        JsonNode answer = JSON.readTree(body);
        JsonNode schema = answer.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new IOException("schema id " + id + ": the answer of " + url + " has no \"schema\": is it a schema registry's API?");
        }
        // Confluent's API leaves the type out for Avro.
        return new Registered(answer.path("schemaType").asText("AVRO"), schema.textValue());
    }
}
