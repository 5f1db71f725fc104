package io.streamtrain.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real headless Chromium, driven over the W3C WebDriver protocol by Debian's {@code chromedriver}
 * (package {@code chromium-driver}) as a child process: plain JSON over HTTP, so no Selenium.
 * Only what the dashboard test needs: open a page, run a script in it, take a screenshot.
 */
final class HeadlessChromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final Process driver;
    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;
    private final String session;

    /** Why this machine cannot run the browser (for a skip message), or empty when it can. */
    static Optional<String> unavailable() {
        if (browser().isEmpty()) {
            return Optional.of("no chromium on PATH: install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)");
        }
        if (onPath("chromedriver").isEmpty()) {
            return Optional.of("no chromedriver on PATH: install Debian's chromium-driver (apt-get install -y chromium-driver)");
        }
        return Optional.empty();
    }

    static HeadlessChromium start(Path logDir, int width, int height) throws Exception {
        Path chromium = browser().orElseThrow();
        Path chromedriver = onPath("chromedriver").orElseThrow();
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Files.createDirectories(logDir);
        Process driver = new ProcessBuilder(chromedriver.toString(), "--port=" + port, "--allowed-ips=127.0.0.1")
                .redirectErrorStream(true).redirectOutput(logDir.resolve("chromedriver.log").toFile()).start();
        try {
            return new HeadlessChromium(driver, "http://127.0.0.1:" + port, chromium, width, height);
        } catch (Exception e) {
            driver.destroyForcibly();
            throw e;
        }
    }

    private HeadlessChromium(Process driver, String base, Path chromium, int width, int height) throws Exception {
        this.driver = driver;
        this.base = base;
        awaitReady();
        Map<String, Object> options = Map.of(
                "binary", chromium.toString(),
                "args", List.of("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--window-size=" + width + "," + height, "--force-device-scale-factor=1"));
        JsonNode created = call("POST", "/session", Map.of("capabilities",
                Map.of("alwaysMatch", Map.of("browserName", "chrome", "goog:chromeOptions", options))));
        this.session = created.get("sessionId").asText();
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
        while (true) {
            try {
                if (call("GET", "/status", null).path("ready").asBoolean()) {
                    return;
                }
            } catch (IOException notYet) {
                if (!driver.isAlive()) {
                    throw new IllegalStateException("chromedriver exited with " + driver.exitValue());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("chromedriver not ready within " + CALL_TIMEOUT);
            }
            Thread.sleep(100);
        }
    }

    void open(String url) throws Exception {
        call("POST", "/session/" + session + "/url", Map.of("url", url));
    }

    /** Runs {@code body} (a function body; {@code return} gives the result) in the page. */
    JsonNode script(String body) throws Exception {
        return call("POST", "/session/" + session + "/execute/sync", Map.of("script", body, "args", List.of()));
    }

    /** A PNG of the viewport. */
    byte[] screenshot() throws Exception {
        return Base64.getDecoder().decode(call("GET", "/session/" + session + "/screenshot", null).asText());
    }

    /** The response's {@code value}; a WebDriver error becomes an exception with its message. */
    private JsonNode call(String method, String path, Object body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path)).timeout(CALL_TIMEOUT)
                .header("Content-Type", "application/json");
        r.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        HttpResponse<String> response = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode value = JSON.readTree(response.body()).path("value");
        if (response.statusCode() != 200) {
            throw new IllegalStateException("WebDriver " + method + " " + path + " -> " + response.statusCode() + ": "
                    + value.path("error").asText() + ": " + value.path("message").asText());
        }
        return value;
    }

    private static Optional<Path> browser() {
        for (String name : new String[] {"chromium", "chromium-browser"}) {
            Optional<Path> p = onPath(name);
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() throws Exception {
        try {
            call("DELETE", "/session/" + session, null);
        } catch (Exception e) {
            // the driver may be gone already; it is stopped below either way
        } finally {
            driver.destroy();
            if (!driver.waitFor(10, TimeUnit.SECONDS)) {
                driver.destroyForcibly();
            }
        }
    }
}
