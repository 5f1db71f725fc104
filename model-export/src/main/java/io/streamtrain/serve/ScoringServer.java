package io.streamtrain.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.schema.ExampleRows;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.component.Graceful;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP scoring on Jetty's core server (see docs/ARCHITECTURE.md, "Serving", for why Jetty). Exact
 * routes ({@link Routes}): {@code POST /score} ({@link ScoreRequests}), the KServe v2 protocol
 * ({@link InferenceProtocol}), {@code GET /model}, {@code /health/live}, {@code /health/ready},
 * {@code /metrics} (Prometheus), {@code POST /admin/reload} (loopback callers only). HEAD works
 * wherever GET does.
 *
 * <p>Connections are non-blocking: a client that stalls before or inside its request holds no
 * thread and is cut off after the idle timeout. Bodies are read asynchronously, bounded (413 past
 * the limit). {@link #stop} drains: it stops accepting, lets requests in flight finish, then closes.
 */
public final class ScoringServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ScoringServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_TYPE = "application/json; charset=utf-8";

    /** A PEM certificate chain and its PKCS#8 key. */
    public record Tls(Path cert, Path key) {}

    /**
     * @param threads request threads (scoring runs on them; waiting connections do not hold one)
     * @param maxRequestBytes bodies above this are refused with 413
     * @param maxExamples examples in one request above this are refused with 413
     * @param maxFeatures features in one example above this are refused with 400
     * @param idleTimeout a connection with nothing received for this long is closed, mid-request or idle
     * @param readyMaxLag with a follower: ready only while it is at most this many records behind
     * @param reloadTimeout a reloaded, following model must be ready within this, or the reload is abandoned
     * @param tls null for plain HTTP
     */
    public record Settings(String host, int port, int threads, int maxRequestBytes, int maxExamples, int maxFeatures,
            Duration idleTimeout, long readyMaxLag, Duration reloadTimeout, Tls tls) {
        /** Plain HTTP with the defaults of {@code serve}'s timeouts. */
        public static Settings of(String host, int port, int threads, int maxRequestBytes, int maxExamples, int maxFeatures) {
            return new Settings(host, port, threads, maxRequestBytes, maxExamples, maxFeatures,
                    Duration.ofSeconds(30), 1000, Duration.ofMinutes(2), null);
        }
    }

    /** Opens the model of another bundle directory (a reload). */
    @FunctionalInterface
    public interface ModelLoader {
        ServedModel open(Path bundleDir) throws Exception;
    }

    private final Settings settings;
    private final ModelSlot slot;
    private final ModelLoader loader;
    private final ServingMetrics metrics;
    private final Server server;
    private final GracefulHandler graceful;
    private final ServerConnector connector;
    private volatile boolean stopping;
    private volatile Parsers parsers;

    /** The request parsers of one model (its feature mapping decides how a raw line parses). */
    private record Parsers(ServedModel model, ScoreRequests score, InferenceProtocol infer) {}

    /** Takes ownership of {@code model}: it is closed when the server stops, or here if the server cannot start. */
    public ScoringServer(Settings s, ServedModel model, ModelLoader loader) throws IOException {
        this.settings = s;
        this.slot = new ModelSlot(model);
        this.loader = loader;
        this.metrics = new ServingMetrics(slot, this::ready);
        QueuedThreadPool pool = new QueuedThreadPool(s.threads() + 2, Math.min(s.threads() + 2, 8));
        pool.setName("serve");
        pool.setReservedThreads(0);
        this.server = new Server(pool);
        this.graceful = new GracefulHandler(new Routes());
        // Jetty cuts connections to 1 s of idleness when a drain starts; a request in flight keeps the usual bound.
        graceful.setShutdownIdleTimeout(s.idleTimeout().toMillis());
        server.setHandler(graceful);
        server.setStopAtShutdown(false); // serve decides when to stop: after draining
        try {
            this.connector = connector(s, server);
            server.addConnector(connector);
            server.start();
        } catch (Exception e) {
            slot.close();
            try {
                server.stop();
            } catch (Exception ignored) {
                // nothing started that needs stopping
            }
            throw e instanceof IOException io ? io : new IOException("cannot listen on " + s.host() + ":" + s.port() + ": " + e.getMessage(), e);
        }
    }

    private static ServerConnector connector(Settings s, Server server) throws IOException {
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        ServerConnector connector;
        if (s.tls() == null) {
            connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        } else {
            http.addCustomizer(new SecureRequestCustomizer(false)); // clients call it by IP: no SNI host check
            connector = new ServerConnector(server, 1, 1,
                    new SslConnectionFactory(PemTls.server(s.tls().cert(), s.tls().key()), "http/1.1"), new HttpConnectionFactory(http));
        }
        connector.setHost(s.host());
        connector.setPort(s.port());
        connector.setIdleTimeout(s.idleTimeout().toMillis());
        connector.setAcceptQueueSize(1024);
        return connector;
    }

    public int port() {
        return connector.getLocalPort();
    }

    public ServingMetrics metrics() {
        return metrics;
    }

    /** The model served now. */
    public ServedModel model() {
        return slot.peek();
    }

    /** What {@code /health/ready} answers: not stopping, and when following, caught up within the bound and not failed. */
    public boolean ready() {
        return readiness() == null;
    }

    /** Why the server is not ready, or null when it is. */
    private String readiness() {
        if (stopping) {
            return "stopping";
        }
        ServedModel model = slot.peek();
        if (model == null) {
            return "no model open";
        }
        return model.follower().map(f -> followReadiness(f, settings.readyMaxLag())).orElse(null);
    }

    private static String followReadiness(ModelFollower f, long maxLag) {
        if (f.failure() != null) {
            return "following model updates failed: " + f.failure();
        }
        if (!f.caughtUp()) {
            return "catching up with the model updates";
        }
        long lag = f.lag();
        if (lag < 0 || lag > maxLag) {
            return "model updates lag " + (lag < 0 ? "not known (Kafka has not answered yet, or not lately)" : lag + " records")
                    + " (ready at most " + maxLag + ")";
        }
        return null;
    }

    /**
     * Switches to the bundle in {@code bundleDir} (null: the current one's directory again, for a
     * symlink that now points elsewhere). Requests keep being answered by the old model until the
     * new one is open (and, when following, caught up); the old one closes when its last request
     * is done. A bundle that fails to open leaves the old one serving.
     */
    public synchronized ServedModel reload(Path bundleDir) throws Exception {
        Path dir = bundleDir != null ? bundleDir : slot.peek().source();
        ServedModel next;
        try {
            next = loader.open(dir);
        } catch (Exception e) {
            metrics.reloaded(false);
            throw e;
        }
        long deadline = System.nanoTime() + settings.reloadTimeout().toNanos();
        String why;
        while ((why = next.follower().map(f -> followReadiness(f, settings.readyMaxLag())).orElse(null)) != null) {
            if (System.nanoTime() > deadline || next.follower().get().failure() != null) {
                next.close();
                metrics.reloaded(false);
                throw new IllegalStateException("the reloaded bundle " + dir + " did not get ready within "
                        + settings.reloadTimeout().toSeconds() + " s (" + why + "); still serving " + slot.peek().source());
            }
            Thread.sleep(50);
        }
        slot.replace(next);
        metrics.reloaded(true);
        LOG.info("now serving {} (checkpoint {})", dir, next.card().checkpoint().id());
        return next;
    }

    /** From now on {@code /health/ready} answers 503; requests are still answered until {@link #stop}. */
    public void announceStop() {
        stopping = true;
    }

    /**
     * Stops taking requests and waits up to {@code drain} for those in flight, then closes.
     * @return true when every request in flight was answered within {@code drain}
     */
    public boolean stop(Duration drain) {
        stopping = true;
        // Closes the listener and makes the graceful handler count down; idle keep-alive connections
        // would hold Jetty's own shutdown future open until their idle timeout, so wait for the
        // requests in flight instead, then close whatever connections are left.
        Graceful.shutdown(server);
        long deadline = System.nanoTime() + drain.toNanos();
        boolean drained;
        while (!(drained = graceful.getCurrentRequestCount() == 0) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!drained) {
            LOG.warn("{} requests still in flight after {} s; closing anyway", graceful.getCurrentRequestCount(), drain.toSeconds());
        }
        try {
            server.setStopTimeout(0);
            server.stop();
        } catch (Exception e) {
            LOG.warn("stopping the HTTP server failed", e);
        }
        slot.close();
        return drained;
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }

    private Parsers parsers(ServedModel model) {
        Parsers p = parsers;
        if (p == null || p.model() != model) {
            ScoreRequests score = new ScoreRequests(model.card().mapping(), settings.maxExamples(), settings.maxFeatures());
            p = new Parsers(model, score, new InferenceProtocol(score));
            parsers = p;
        }
        return p;
    }

    /** A response: status, content type and body. */
    private record Reply(int status, String contentType, byte[] body) {
        static Reply json(int status, Object body) {
            try {
                return new Reply(status, JSON_TYPE, JSON.writeValueAsBytes(body));
            } catch (IOException | RuntimeException e) {
                LOG.error("cannot write a response", e);
                return new Reply(500, JSON_TYPE, "{\"error\": \"internal error\", \"status\": 500}".getBytes(StandardCharsets.UTF_8));
            }
        }

        static Reply error(BadRequest bad) {
            return json(bad.status(), Map.of("error", bad.getMessage(), "status", bad.status()));
        }
    }

    /** What an endpoint does with a request (and its body, for POST). */
    @FunctionalInterface
    private interface Action {
        Reply run(Request request, byte[] body) throws Exception;
    }

    /** An endpoint: its method (GET also answers HEAD), its name in metrics, and its action. */
    private record Endpoint(String method, String name, Action action) {}

    /** Exact routing: a path matches one endpoint or none; a wrong method is a 405 naming the right one. */
    private final class Routes extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            long t0 = System.nanoTime();
            metrics.started();
            String path = request.getHttpURI().getPath();
            Endpoint endpoint = route(path);
            String method = request.getMethod();
            if (endpoint == null) {
                reply(request, response, callback, t0, "unmatched", Reply.error(new BadRequest(404, "no such endpoint " + path
                        + "; try POST /score, POST /v2/models/{name}/infer, GET /model, GET /health/live, GET /health/ready, GET /metrics")));
            } else if (!method.equals(endpoint.method()) && !(method.equals("HEAD") && endpoint.method().equals("GET"))) {
                response.getHeaders().put(HttpHeader.ALLOW, endpoint.method().equals("GET") ? "GET, HEAD" : endpoint.method());
                reply(request, response, callback, t0, endpoint.name(),
                        Reply.error(new BadRequest(405, "use " + endpoint.method() + " for " + path)));
            } else if (endpoint.method().equals("POST")) {
                readBody(request, response, callback, t0, endpoint);
            } else {
                reply(request, response, callback, t0, endpoint.name(), run(endpoint, request, null));
            }
            return true;
        }

        private void readBody(Request request, Response response, Callback callback, long t0, Endpoint endpoint) {
            long declared = request.getLength();
            int max = settings.maxRequestBytes();
            if (declared > max) {
                tooLarge(request, response, callback, t0, endpoint, "request body of " + declared + " bytes; at most " + max);
                return;
            }
            // Runs on a pool thread once the whole body is in; a client that stalls mid-body holds none meanwhile.
            Content.Source.asByteArrayAsync(request, max, Promise.Invocable.from(Invocable.InvocationType.BLOCKING,
                    (byte[] body, Throwable failure) -> {
                        if (failure == null) {
                            reply(request, response, callback, t0, endpoint.name(), run(endpoint, request, body));
                        } else if (failure instanceof IllegalStateException) { // Jetty: "Max size (N) exceeded"
                            tooLarge(request, response, callback, t0, endpoint, "request body over " + max + " bytes");
                        } else if (failure instanceof TimeoutException) {
                            response.getHeaders().put(HttpHeader.CONNECTION, "close");
                            reply(request, response, callback, t0, endpoint.name(), Reply.error(new BadRequest(408,
                                    "the request body did not arrive within --idle-timeout " + settings.idleTimeout().toSeconds() + " s")));
                        } else {
                            metrics.answered(endpoint.name(), 400, System.nanoTime() - t0);
                            callback.failed(failure); // the client went away: nobody to answer
                        }
                    }));
        }

        private void tooLarge(Request request, Response response, Callback callback, long t0, Endpoint endpoint, String message) {
            // The rest of an oversized body is never read: close the connection after answering.
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            reply(request, response, callback, t0, endpoint.name(), Reply.error(BadRequest.tooLarge(message)));
        }

        private Reply run(Endpoint endpoint, Request request, byte[] body) {
            try {
                return endpoint.action().run(request, body);
            } catch (BadRequest bad) {
                return Reply.error(bad);
            } catch (Exception | Error e) {
                LOG.error("{} failed", endpoint.name(), e);
                return Reply.error(new BadRequest(500, "internal error: " + e));
            }
        }

        private void reply(Request request, Response response, Callback callback, long t0, String name, Reply reply) {
            response.setStatus(reply.status());
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.contentType());
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, reply.body().length);
            metrics.answered(name, reply.status(), System.nanoTime() - t0);
            boolean head = request.getMethod().equals("HEAD");
            response.write(true, head ? null : ByteBuffer.wrap(reply.body()), callback);
        }
    }

    private Endpoint route(String path) {
        switch (path) {
            case "/score":
                return new Endpoint("POST", "/score", this::score);
            case "/model":
                return new Endpoint("GET", "/model", (r, b) -> Reply.json(200, slot.peek().card()));
            case "/health/live":
            case "/v2/health/live":
                return new Endpoint("GET", path, (r, b) -> Reply.json(200, Map.of("live", true)));
            case "/health/ready":
                return new Endpoint("GET", path, (r, b) -> health());
            case "/v2/health/ready":
                return new Endpoint("GET", path, (r, b) -> Reply.json(ready() ? 200 : 503, Map.of("ready", ready())));
            case "/metrics":
                return new Endpoint("GET", "/metrics", (r, b) ->
                        new Reply(200, ServingMetrics.CONTENT_TYPE, metrics.scrape().getBytes(StandardCharsets.UTF_8)));
            case "/admin/reload":
                return new Endpoint("POST", "/admin/reload", this::reload);
            case "/v2":
                return new Endpoint("GET", "/v2", (r, b) -> Reply.json(200, InferenceProtocol.server()));
            default:
                return path.startsWith("/v2/models/") ? modelRoute(path) : null;
        }
    }

    /** {@code /v2/models/{name}[/versions/{version}][/ready|/infer]}. */
    private Endpoint modelRoute(String path) {
        List<String> parts = List.of(path.substring("/v2/models/".length()).split("/", -1));
        String name = parts.get(0);
        int next = 1;
        String version = null;
        if (parts.size() >= 3 && parts.get(1).equals("versions")) {
            version = parts.get(2);
            next = 3;
        }
        String tail = parts.size() == next ? "" : parts.size() == next + 1 ? parts.get(next) : null;
        if (name.isEmpty() || tail == null || (version != null && version.isEmpty())) {
            return null;
        }
        String pinned = version;
        return switch (tail) {
            case "" -> new Endpoint("GET", "/v2/models/{name}", (r, b) -> {
                check(slot.peek().card(), name, pinned);
                return Reply.json(200, InferenceProtocol.metadata(slot.peek().card()));
            });
            case "ready" -> new Endpoint("GET", "/v2/models/{name}/ready", (r, b) -> {
                check(slot.peek().card(), name, pinned);
                return Reply.json(ready() ? 200 : 503, Map.of("name", name, "ready", ready()));
            });
            case "infer" -> new Endpoint("POST", "/v2/models/{name}/infer", (r, b) -> infer(name, pinned, b));
            default -> null;
        };
    }

    private static void check(ModelCard card, String name, String version) throws BadRequest {
        if (!name.equals(card.name())) {
            throw new BadRequest(404, "no model '" + name + "'; this server serves '" + card.name() + "'");
        }
        if (version != null && !version.equals(InferenceProtocol.version(card))) {
            throw new BadRequest(404, "model '" + name + "' has no version " + version + "; it serves version " + InferenceProtocol.version(card));
        }
    }

    private Reply score(Request request, byte[] body) throws BadRequest {
        try (ModelSlot.Lease lease = slot.acquire()) {
            List<ExampleRows> examples = parsers(lease.model).score().parse(body);
            return Reply.json(200, Map.of("scores", scores(lease.model, examples)));
        }
    }

    private Reply infer(String name, String version, byte[] body) throws BadRequest {
        try (ModelSlot.Lease lease = slot.acquire()) {
            ModelCard card = lease.model.card();
            check(card, name, version);
            InferenceProtocol.Inference inference = parsers(lease.model).infer().parse(body);
            return Reply.json(200, InferenceProtocol.response(card, inference.id(), scores(lease.model, inference.examples())));
        }
    }

    private double[] scores(ServedModel model, List<ExampleRows> examples) {
        double[] scores = new double[examples.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = model.score(examples.get(i));
        }
        metrics.scored(scores.length);
        return scores;
    }

    private Reply health() {
        String why = readiness();
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("ready", why == null);
        if (why != null) {
            h.put("reason", why);
        }
        ServedModel model = slot.peek();
        if (model != null) {
            h.put("bundle", model.source().toString());
            h.put("model", model.card().modelType());
            h.put("checkpoint", model.card().checkpoint().id());
            model.follower().ifPresent(f -> h.put("follow", f.status()));
        }
        return Reply.json(why == null ? 200 : 503, h);
    }

    /** {@code POST /admin/reload}, body empty or {@code {"bundle": "DIR"}} (a directory or {@code s3://…}); only from the pod itself. */
    private Reply reload(Request request, byte[] body) throws Exception {
        if (!fromLoopback(request)) {
            throw new BadRequest(403, "/admin/reload answers only callers on this host (e.g. kubectl exec … curl)");
        }
        Path dir = null;
        if (body.length > 0) {
            JsonNode root = ScoreRequests.object(body);
            JsonNode bundle = root.get("bundle");
            if (root.size() != 1 || bundle == null || !bundle.isTextual()) {
                throw BadRequest.invalid("expected {\"bundle\": \"DIR\"} or an empty body");
            }
            try {
                dir = ModelStorage.local(bundle.textValue()); // a directory here or on s3://…
            } catch (IllegalArgumentException e) {
                throw BadRequest.invalid(e.getMessage());
            }
        }
        try {
            ServedModel now = reload(dir);
            return Reply.json(200, Map.of("bundle", ModelStorage.location(now.source()), "checkpoint", now.card().checkpoint().id()));
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            throw new BadRequest(422, "reload failed, still serving " + slot.peek().source() + ": " + e.getMessage());
        }
    }

    private static boolean fromLoopback(Request request) {
        try {
            return InetAddress.getByName(Request.getRemoteAddr(request)).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
