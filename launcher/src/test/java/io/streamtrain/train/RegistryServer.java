package io.streamtrain.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A schema registry for the tests: an HTTP server on a loopback port with the part of the
 * Confluent Schema Registry REST API that producers and readers of the wire format use (register
 * a schema under a subject, {@code POST /subjects/<s>/versions} → {@code {"id": n}}; fetch one,
 * {@code GET /schemas/ids/<n>} → {@code {"schema": "..."}} or 404), with schemas in memory.
 *
 * <p>Why not a real registry: Apicurio Registry's app (3.3.3, 2.6.13.Final, 2.4.2.Final) cannot be
 * resolved from Maven Central here (it needs artefacts Central does not serve, e.g.
 * apicurio-registry-schema-util-provider 3.3.3 and org.everit.json.schema 1.14.2), and Confluent's
 * registry is not on Maven Central at all. Its Quarkus app jar would in any case need a Quarkus build
 * (augmentation) step to become runnable.
 */
final class RegistryServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final List<String> schemas = new ArrayList<>(); // id n is at index n - 1
    private int requests;

    RegistryServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Registers {@code schema} (as a producer's serializer would) and returns its id. */
    synchronized int register(String subject, String schema) {
        int existing = schemas.indexOf(schema);
        if (existing >= 0) {
            return existing + 1;
        }
        schemas.add(schema);
        return schemas.size();
    }

    /** Schema fetches served so far. */
    synchronized int requests() {
        return requests;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        try (exchange) {
            if (exchange.getRequestMethod().equals("GET") && path.startsWith("/schemas/ids/")) {
                String schema;
                synchronized (this) {
                    requests++;
                    int id = Integer.parseInt(path.substring("/schemas/ids/".length()));
                    schema = id >= 1 && id <= schemas.size() ? schemas.get(id - 1) : null;
                }
                if (schema == null) {
                    respond(exchange, 404, Map.of("error_code", 40403, "message", "Schema not found"));
                } else {
                    respond(exchange, 200, Map.of("schema", schema));
                }
            } else if (exchange.getRequestMethod().equals("POST") && path.matches("/subjects/[^/]+/versions")) {
                JsonNode body = JSON.readTree(exchange.getRequestBody());
                respond(exchange, 200, Map.of("id", register(path.split("/")[2], body.get("schema").asText())));
            } else {
                respond(exchange, 404, Map.of("error_code", 404, "message", "no such endpoint"));
            }
        }
    }

    private static void respond(HttpExchange exchange, int status, Map<String, ?> body) throws IOException {
        byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
