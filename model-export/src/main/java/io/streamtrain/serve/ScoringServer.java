package io.streamtrain.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.schema.ExampleRows;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP JSON scoring on the JDK's built-in server: {@code POST /score} (see {@link ScoreRequests}),
 * {@code GET /model} (the model card), {@code GET /health}, {@code GET /metrics}. Scores use the
 * trainer's own model math over the bundle's rows ({@link LoadedModel}). Request bodies are bounded:
 * a larger one is refused with 413 before it is read.
 */
public final class ScoringServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ScoringServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param maxRequestBytes bodies above this are refused with 413
     * @param maxExamples examples in one request above this are refused with 413
     * @param maxFeatures features in one example above this are refused with 400
     * @param threads request threads
     */
    public record Settings(String host, int port, int threads, int maxRequestBytes, int maxExamples, int maxFeatures) {}

    static {
        // The JDK server writes a response's headers and body separately; without TCP_NODELAY, Nagle
        // plus the client's delayed ACK add ~40 ms to every keep-alive request. Its only switch is this
        // property, read once when the server classes load, so it is set before the first server.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final HttpServer http;
    private final ExecutorService executor;
    private final LoadedModel model;
    private final ModelCard card;
    private final ScoreRequests requests;
    private final int maxRequestBytes;
    private final Supplier<Map<String, Object>> followStatus;
    private final ServingMetrics metrics = new ServingMetrics();

    /** @param followStatus what {@code GET /health} reports about following model updates (empty map: not following) */
    public ScoringServer(Settings s, LoadedModel model, ModelCard card, Supplier<Map<String, Object>> followStatus) throws IOException {
        this.model = model;
        this.card = card;
        this.requests = new ScoreRequests(card.mapping(), s.maxExamples(), s.maxFeatures());
        this.maxRequestBytes = s.maxRequestBytes();
        this.followStatus = followStatus;
        this.http = HttpServer.create(new InetSocketAddress(s.host(), s.port()), 256);
        this.executor = Executors.newFixedThreadPool(s.threads(), r -> {
            Thread t = new Thread(r, "serve-request");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        http.createContext("/score", this::score);
        http.createContext("/model", e -> get(e, () -> card));
        http.createContext("/health", e -> get(e, this::health));
        http.createContext("/metrics", e -> get(e, metrics::snapshot));
        http.createContext("/", e -> fail(e, System.nanoTime(), new BadRequest(404, "no such endpoint "
                + e.getRequestURI().getPath() + "; try POST /score, GET /model, GET /health, GET /metrics")));
        http.start();
    }

    public int port() {
        return http.getAddress().getPort();
    }

    public ServingMetrics metrics() {
        return metrics;
    }

    private void score(HttpExchange e) throws IOException {
        long t0 = System.nanoTime();
        try {
            if (!"POST".equals(e.getRequestMethod())) {
                e.getResponseHeaders().set("Allow", "POST");
                throw new BadRequest(405, "use POST for /score");
            }
            List<ExampleRows> examples = requests.parse(body(e));
            double[] scores = new double[examples.size()];
            for (int i = 0; i < scores.length; i++) {
                scores[i] = model.predict(examples.get(i).keys(), examples.get(i).values());
            }
            respond(e, 200, Map.of("scores", scores));
            metrics.scored(scores.length, System.nanoTime() - t0);
        } catch (BadRequest bad) {
            fail(e, t0, bad);
        } catch (RuntimeException ex) {
            LOG.error("scoring failed", ex);
            fail(e, t0, new BadRequest(500, "internal error: " + ex.getMessage()));
        }
    }

    private void get(HttpExchange e, Supplier<Object> body) throws IOException {
        long t0 = System.nanoTime();
        if (!"GET".equals(e.getRequestMethod())) {
            e.getResponseHeaders().set("Allow", "GET");
            fail(e, t0, new BadRequest(405, "use GET for " + e.getRequestURI().getPath()));
            return;
        }
        drain(e);
        respond(e, 200, body.get());
    }

    private Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("status", "ok");
        h.put("model", card.modelType());
        h.put("rows", card.contents().rows());
        h.put("checkpoint", card.checkpoint().path());
        Map<String, Object> follow = followStatus.get();
        if (!follow.isEmpty()) {
            h.put("follow", follow);
        }
        return h;
    }

    /** The body, at most maxRequestBytes: a declared or actual larger one is a 413. */
    private byte[] body(HttpExchange e) throws IOException, BadRequest {
        String declared = e.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.trim());
            } catch (NumberFormatException nfe) {
                throw BadRequest.invalid("bad Content-Length '" + declared + "'");
            }
            if (length > maxRequestBytes) {
                throw BadRequest.tooLarge("request body of " + length + " bytes; at most " + maxRequestBytes);
            }
        }
        try (InputStream in = e.getRequestBody()) {
            byte[] bytes = in.readNBytes(maxRequestBytes + 1);
            if (bytes.length > maxRequestBytes) {
                throw BadRequest.tooLarge("request body over " + maxRequestBytes + " bytes");
            }
            return bytes;
        }
    }

    private void fail(HttpExchange e, long t0, BadRequest bad) throws IOException {
        if (bad.status() == 413) {
            // The rest of an oversized body is never read: close the connection after answering.
            e.getResponseHeaders().set("Connection", "close");
        } else {
            drain(e);
        }
        respond(e, bad.status(), Map.of("error", bad.getMessage(), "status", bad.status()));
        metrics.failed(bad.status(), System.nanoTime() - t0);
    }

    /**
     * Closing the body lets the JDK server read what is left of it, bounded (it closes the
     * connection past {@code sun.net.httpserver.drainAmount}, 64 KiB). Not {@code skip()}: the
     * server's body stream does not override it, so it would read past the body into the socket.
     */
    private static void drain(HttpExchange e) throws IOException {
        e.getRequestBody().close();
    }

    private static void respond(HttpExchange e, int status, Object body) throws IOException {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (IOException | RuntimeException ex) {
            LOG.error("cannot write a response", ex);
            bytes = "{\"error\": \"internal error\", \"status\": 500}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            status = 500;
        }
        e.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        e.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = e.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
