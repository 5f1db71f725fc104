package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.bundle.TestTables;
import io.streamtrain.schema.FeatureKey;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a real {@code serve} process with requests in flight: readiness turns 503 first, then
 * the listener closes, every request already begun is answered in full, and the process exits 0.
 */
class ServeShutdownTest {
    private static final int IN_FLIGHT = 16;

    @TempDir
    Path dir;

    @Test
    void sigtermAnswersEveryRequestInFlightThenExitsZero() throws Exception {
        Path bundle = TestBundles.write(dir, "bundle", TestTables.info("fm", 4), 300);
        Path log = dir.resolve("serve.log");
        Process serve = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ServeProcess.class.getName(),
                "--bundle", bundle.toString(), "--port", "0", "--shutdown-delay", "2", "--drain-timeout", "30")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int port = port(serve, log);
            URI base = URI.create("http://127.0.0.1:" + port);
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

            String body = "{\"features\": [{\"field\": " + FeatureKey.field(TestTables.key(5)) + ", \"id\": " + FeatureKey.id(TestTables.key(5)) + "}]}";
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            int half = bytes.length / 2;
            List<Socket> inFlight = new ArrayList<>();
            for (int i = 0; i < IN_FLIGHT; i++) {
                Socket s = new Socket("127.0.0.1", port);
                s.setSoTimeout(60_000);
                OutputStream o = s.getOutputStream();
                o.write(("POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                o.write(bytes, 0, half);
                o.flush();
                inFlight.add(s);
            }
            waitFor(() -> ScoringServerTest.metric(get(http, base, "/metrics").body(), "streamtrain_serve_requests_in_flight") >= IN_FLIGHT + 1,
                    "the server has every request in flight");

            serve.destroy(); // SIGTERM
            waitFor(() -> get(http, base, "/health/ready").statusCode() == 503, "ready turns 503 on SIGTERM");
            assertEquals(200, get(http, base, "/health/live").statusCode(), "still live while draining");
            waitFor(() -> {
                try (Socket probe = new Socket("127.0.0.1", port)) {
                    return false;
                } catch (ConnectException refused) {
                    return true;
                }
            }, "the listener closes after --shutdown-delay");
            assertTrue(serve.isAlive(), "serve waits for the requests in flight");

            for (Socket s : inFlight) {
                s.getOutputStream().write(bytes, half, bytes.length - half);
                s.getOutputStream().flush();
            }
            for (Socket s : inFlight) {
                String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(response.startsWith("HTTP/1.1 200"), response);
                assertTrue(response.endsWith("]}"), "a whole body: " + response);
                assertTrue(response.contains("\"scores\":["), response);
                s.close();
            }
            assertTrue(serve.waitFor(30, TimeUnit.SECONDS), "serve exits after the drain");
            String output = Files.readString(log);
            assertEquals(0, serve.exitValue(), output);
            assertTrue(output.contains("serve: stopped after answering every request"), output);
        } finally {
            serve.destroyForcibly();
        }
    }

    private static int port(Process serve, Path log) throws Exception {
        Pattern listening = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            Matcher m = listening.matcher(Files.readString(log));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!serve.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("serve did not start listening:\n" + Files.readString(log));
    }

    private static HttpResponse<String> get(HttpClient http, URI base, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @FunctionalInterface
    interface Check {
        boolean holds() throws Exception;
    }

    private static void waitFor(Check check, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out: " + what);
            }
            Thread.sleep(20);
        }
    }
}
