package io.streamtrain.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live dashboard on 127.0.0.1: {@code GET /} is a page (HTML and a small script bundled in the
 * jar, no external assets) that polls {@code GET /api/timeline} once a second and draws the
 * {@link ReportWriter#SERIES} of a {@link LiveTimeline} with its markers. {@code ?from=S} limits
 * points and markers to seconds ≥ S, so the page fetches only the recent tail each time.
 */
public final class DashboardServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> ASSETS = Map.of(
            "/", "dashboard.html",
            "/dashboard.js", "dashboard.js");

    private final LiveTimeline live;
    private final HttpServer http;
    private final ExecutorService executor;

    /** Serves {@code live} on 127.0.0.1:{@code port} (0: any free port). */
    public DashboardServer(LiveTimeline live, int port) throws IOException {
        this.live = live;
        try {
            this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        } catch (BindException e) {
            throw new IOException("cannot listen on 127.0.0.1:" + port + " (" + e.getMessage() + "); choose another port", e);
        }
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "streamtrain-dashboard-http");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        http.createContext("/", this::handle);
        http.start();
    }

    public int port() {
        return http.getAddress().getPort();
    }

    public String url() {
        return "http://127.0.0.1:" + port() + "/";
    }

    private void handle(HttpExchange e) throws IOException {
        try (e) {
            e.getRequestBody().close();
            String path = e.getRequestURI().getPath();
            if (!"GET".equals(e.getRequestMethod())) {
                e.getResponseHeaders().set("Allow", "GET");
                send(e, 405, "text/plain", "use GET\n".getBytes(StandardCharsets.UTF_8));
            } else if ("/api/timeline".equals(path)) {
                long from = parseFrom(e.getRequestURI().getRawQuery());
                send(e, 200, "application/json", JSON.writeValueAsBytes(timelineJson(live, from)));
            } else if (ASSETS.containsKey(path)) {
                String name = ASSETS.get(path);
                send(e, 200, name.endsWith(".js") ? "text/javascript" : "text/html", asset(name));
            } else {
                send(e, 404, "text/plain", ("no such page " + path + "; try / or /api/timeline\n").getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException | RuntimeException ex) {
            LOG.warn("dashboard request {} failed", e.getRequestURI(), ex);
        }
    }

    private static long parseFrom(String query) {
        if (query != null) {
            for (String part : query.split("&")) {
                if (part.startsWith("from=")) {
                    try {
                        return Math.max(0, Long.parseLong(part.substring(5)));
                    } catch (NumberFormatException ignored) {
                        return 0; // a bad value means "everything"
                    }
                }
            }
        }
        return 0;
    }

    /** The timeline as the page reads it; NaN (never reported) becomes null. */
    static Map<String, Object> timelineJson(LiveTimeline live, long from) {
        RunTimeline run = live.timeline();
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("topic", live.topic());
        j.put("status", live.status());
        j.put("records", live.records());
        j.put("unreadable", live.unreadable());
        j.put("startMs", run.startMs());
        j.put("seconds", run.seconds());
        j.put("from", from);
        List<Map<String, String>> series = new ArrayList<>();
        for (ReportWriter.Series s : ReportWriter.SERIES) {
            series.add(Map.of("key", s.key(), "title", s.title(), "unit", s.unit()));
        }
        j.put("series", series);
        Map<String, String> colours = new LinkedHashMap<>();
        for (RunTimeline.Kind k : RunTimeline.Kind.values()) {
            colours.put(k.name().toLowerCase(Locale.ROOT), ReportWriter.markerColour(k));
        }
        j.put("markerColours", colours);
        List<List<Object>> points = new ArrayList<>();
        for (RunTimeline.Point p : run.points()) {
            if (p.second() >= from) {
                List<Object> row = new ArrayList<>();
                row.add(p.second());
                for (ReportWriter.Series s : ReportWriter.SERIES) {
                    row.add(orNull(s.value().applyAsDouble(p)));
                }
                points.add(row);
            }
        }
        j.put("points", points);
        List<Map<String, Object>> markers = new ArrayList<>();
        for (RunTimeline.Marker m : run.markers()) {
            if (m.second() >= from) {
                markers.add(Map.of("second", m.second(), "kind", m.kind().name().toLowerCase(Locale.ROOT), "label", m.label()));
            }
        }
        j.put("markers", markers);
        Map<String, Object> now = new LinkedHashMap<>();
        now.put("examples", run.examples());
        for (ReportWriter.Series s : ReportWriter.SERIES) {
            now.put(s.key(), orNull(s.key().equals("examples-per-second") ? run.recentRate(5) : run.last(s.value())));
        }
        now.put("base-logloss", orNull(run.last(RunTimeline.Point::baseLogloss)));
        now.put("checkpoints", run.count(RunTimeline.Kind.CHECKPOINT));
        now.put("rescales", run.count(RunTimeline.Kind.RESCALE));
        now.put("recoveries", run.count(RunTimeline.Kind.RECOVERY));
        j.put("now", now);
        return j;
    }

    private static Object orNull(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static byte[] asset(String name) {
        try (InputStream in = DashboardServer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("dashboard asset " + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void send(HttpExchange e, int status, String type, byte[] body) throws IOException {
        e.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        e.getResponseHeaders().set("Cache-Control", "no-store");
        e.sendResponseHeaders(status, body.length);
        try (OutputStream out = e.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }
}
