package io.streamtrain.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The SQL Gateway's REST API (v1), as any HTTP client uses it. */
final class GatewayClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http = HttpClient.newHttpClient();

    GatewayClient(URI base) {
        this.base = base;
    }

    String openSession() throws Exception {
        return post("/v1/sessions", "{}").path("sessionHandle").asText();
    }

    /** Submits a statement and fetches all of its result rows. */
    List<JsonNode> execute(String session, String statement) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        String operation = submit(session, statement);
        String next = "/v1/sessions/" + session + "/operations/" + operation + "/result/0";
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (next != null) {
            assertTrue(System.nanoTime() < deadline, "no end of results for: " + statement);
            HttpResponse<String> r = get(next);
            assertEquals(200, r.statusCode(), statement + ": " + r.body());
            JsonNode body = JSON.readTree(r.body());
            String type = body.path("resultType").asText();
            body.path("results").path("data").forEach(rows::add);
            if (type.equals("EOS")) {
                break;
            }
            if (type.equals("NOT_READY")) {
                Thread.sleep(200);
            }
            next = body.path("nextResultUri").asText(next);
        }
        return rows;
    }

    /** Submits a statement that must fail; the error text the gateway reports. */
    String executeExpectingError(String session, String statement) throws Exception {
        String operation = submit(session, statement);
        String next = "/v1/sessions/" + session + "/operations/" + operation + "/result/0";
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = get(next);
            if (r.statusCode() != 200) {
                return r.body();
            }
            JsonNode body = JSON.readTree(r.body());
            assertEquals("NOT_READY", body.path("resultType").asText(), "the statement was expected to fail: " + statement);
            Thread.sleep(200);
        }
        throw new AssertionError("no error within 60 s for: " + statement);
    }

    private String submit(String session, String statement) throws Exception {
        return post("/v1/sessions/" + session + "/statements", JSON.writeValueAsString(Map.of("statement", statement)))
                .path("operationHandle").asText();
    }

    private JsonNode post(String path, String json) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
