package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.schema.FeatureKey;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What a platform team relies on, driven with real HTTP clients: bundle switches under load without
 * a failed request, stalled connections beside normal traffic, TLS with a certificate made now,
 * and options refused at start-up.
 */
class ServingOperationsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ROWS = 500;

    @TempDir
    static Path dir;
    static Path bundleA;
    static Path bundleB;
    static LoadedModel modelA;
    static LoadedModel modelB;

    @BeforeAll
    static void exportTwoBundles() throws Exception {
        ModelInfo fm = TestTables.info("fm", 4);
        ModelInfo lr = TestTables.info("lr", 1);
        bundleA = TestBundles.write(dir, "bundle-a", fm, ROWS);
        bundleB = TestBundles.write(dir, "bundle-b", lr, ROWS);
        modelA = LoadedModel.load(dir.resolve("savepoint-bundle-a"), fm);
        modelB = LoadedModel.load(dir.resolve("savepoint-bundle-b"), lr);
    }

    private static ScoringServer start(ScoringServer.Settings settings, Path bundle) throws Exception {
        return new ScoringServer(settings, ServedModel.open(bundle), ServedModel::open);
    }

    /** One example: the feature {@code key} and its neighbour row (two features, so an FM's pairwise term counts). */
    private static String body(long key) {
        long other = TestTables.key(1);
        return "{\"features\": [{\"field\": " + FeatureKey.field(key) + ", \"id\": " + FeatureKey.id(key) + "}, {\"field\": "
                + FeatureKey.field(other) + ", \"id\": " + FeatureKey.id(other) + "}]}";
    }

    private static double expected(LoadedModel model, long key) {
        long other = TestTables.key(1);
        return model.predict(new long[] {Math.min(key, other), Math.max(key, other)}, new float[] {1f, 1f});
    }

    private static HttpRequest score(URI base, long key) {
        return HttpRequest.newBuilder(base.resolve("/score")).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body(key))).build();
    }

    @Test
    void reloadsUnderLoadWithoutAFailedRequest() throws Exception {
        try (ScoringServer server = start(ScoringServer.Settings.of("127.0.0.1", 0, 4, 1 << 16, 100, 100), bundleA)) {
            URI base = URI.create("http://127.0.0.1:" + server.port());
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong ok = new AtomicLong();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            long key = TestTables.key(42);
            double scoreA = expected(modelA, key);
            double scoreB = expected(modelB, key);
            assertNotEquals(scoreA, scoreB, 1e-6);
            ExecutorService clients = Executors.newFixedThreadPool(6);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < 6; c++) {
                done.add(clients.submit(() -> {
                    while (running.get()) {
                        try {
                            HttpResponse<String> r = http.send(score(base, key), HttpResponse.BodyHandlers.ofString());
                            double s = r.statusCode() == 200 ? JSON.readTree(r.body()).get("scores").get(0).asDouble() : Double.NaN;
                            if (Math.abs(s - scoreA) > 1e-12 && Math.abs(s - scoreB) > 1e-12) {
                                failures.add(r.statusCode() + " " + r.body());
                            } else {
                                ok.incrementAndGet();
                            }
                        } catch (Exception e) {
                            failures.add(e.toString());
                        }
                    }
                }));
            }
            Thread.sleep(300);
            for (int i = 0; i < 6; i++) {
                Path next = i % 2 == 0 ? bundleB : bundleA;
                HttpResponse<String> reload = http.send(HttpRequest.newBuilder(base.resolve("/admin/reload"))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"bundle\": \"" + next + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, reload.statusCode(), reload.body());
                Thread.sleep(250);
            }
            running.set(false);
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            clients.shutdown();
            assertEquals(List.of(), new ArrayList<>(failures), "no request failed during 6 reloads");
            assertTrue(ok.get() > 100, "requests answered during the reloads: " + ok.get());
            // The last reload went back to A.
            double now = JSON.readTree(http.send(score(base, key), HttpResponse.BodyHandlers.ofString()).body()).get("scores").get(0).asDouble();
            assertEquals(scoreA, now, 1e-12);
            String metrics = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertEquals(6, ScoringServerTest.metric(metrics, "streamtrain_serve_model_reloads_total{result=\"ok\",}"), metrics);

            HttpResponse<String> broken = http.send(HttpRequest.newBuilder(base.resolve("/admin/reload"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"bundle\": \"" + dir.resolve("no-such-bundle") + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(422, broken.statusCode(), broken.body());
            assertTrue(broken.body().contains("still serving " + bundleA), broken.body());
            HttpResponse<String> noBucket = http.send(HttpRequest.newBuilder(base.resolve("/admin/reload"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"bundle\": \"s3:///bundle\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(400, noBucket.statusCode(), noBucket.body());
            assertTrue(noBucket.body().contains("names its bucket"), noBucket.body());
            assertEquals(200, http.send(score(base, key), HttpResponse.BodyHandlers.ofString()).statusCode());
        }
    }

    @Test
    void aWatchedSymlinkSwitchesBundlesAndAnEmptyReloadFollowsIt() throws Exception {
        Path link = dir.resolve("current");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, bundleA);
        try (ScoringServer server = start(ScoringServer.Settings.of("127.0.0.1", 0, 4, 1 << 16, 100, 100), link);
                BundleWatcher watcher = new BundleWatcher(link, BundleWatcher.version(link).orElseThrow(), Duration.ofMillis(100), server)) {
            URI base = URI.create("http://127.0.0.1:" + server.port());
            HttpClient http = HttpClient.newHttpClient();
            long key = TestTables.key(7);
            moveLink(link, bundleB);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (Math.abs(score(http, base, key) - expected(modelB, key)) > 1e-12) {
                assertTrue(System.nanoTime() < deadline, "the watcher did not switch to the moved link's bundle");
                Thread.sleep(50);
            }
        }
        moveLink(link, bundleA);
        try (ScoringServer server = start(ScoringServer.Settings.of("127.0.0.1", 0, 4, 1 << 16, 100, 100), link)) {
            URI base = URI.create("http://127.0.0.1:" + server.port());
            HttpClient http = HttpClient.newHttpClient();
            long key = TestTables.key(7);
            moveLink(link, bundleB);
            HttpResponse<String> reload = http.send(HttpRequest.newBuilder(base.resolve("/admin/reload"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, reload.statusCode(), reload.body());
            assertEquals(expected(modelB, key), score(http, base, key), 1e-12);
        }
    }

    private static void moveLink(Path link, Path target) throws Exception {
        Path next = link.resolveSibling(link.getFileName() + ".next");
        Files.deleteIfExists(next);
        Files.createSymbolicLink(next, target);
        Files.move(next, link, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static double score(HttpClient http, URI base, long key) throws Exception {
        return JSON.readTree(http.send(score(base, key), HttpResponse.BodyHandlers.ofString()).body()).get("scores").get(0).asDouble();
    }

    @Test
    void stalledConnectionsNeitherBlockOthersNorStayOpen() throws Exception {
        ScoringServer.Settings settings = new ScoringServer.Settings("127.0.0.1", 0, 2, 1 << 16, 100, 100,
                Duration.ofSeconds(2), 1000, Duration.ofSeconds(30), null);
        try (ScoringServer server = start(settings, bundleA)) {
            List<Socket> stalled = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                String partial = i % 2 == 0
                        ? "POST /score HTTP/1.1\r\n" // a request line, then silence
                        : "POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"featu"; // half a body
                s.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                stalled.add(s);
            }
            URI base = URI.create("http://127.0.0.1:" + server.port());
            HttpClient http = HttpClient.newHttpClient();
            long slowest = 0;
            for (int i = 0; i < 200; i++) {
                long t0 = System.nanoTime();
                HttpResponse<String> r = http.send(score(base, TestTables.key(i)), HttpResponse.BodyHandlers.ofString());
                slowest = Math.max(slowest, System.nanoTime() - t0);
                assertEquals(200, r.statusCode(), r.body());
            }
            assertTrue(slowest < TimeUnit.SECONDS.toNanos(1),
                    "8 stalled connections on 2 request threads delayed others: slowest " + slowest / 1e6 + " ms");
            for (Socket s : stalled) {
                s.setSoTimeout(15_000);
                long t0 = System.nanoTime();
                InputStream in = s.getInputStream();
                // The server closes it after the idle timeout (an error response may come first).
                while (in.read() >= 0) {
                    // drain
                }
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10), "a stalled connection stayed open");
                s.close();
            }
        }
    }

    @Test
    void servesHttpsWithAPemCertificateMadeNow() throws Exception {
        Path cert = dir.resolve("tls/cert.pem");
        Path key = dir.resolve("tls/key.pem");
        Files.createDirectories(cert.getParent());
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key.toString(), "-out", cert.toString()).redirectErrorStream(true).start();
        String out = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, openssl.waitFor(), out);
        ScoringServer.Settings settings = new ScoringServer.Settings("127.0.0.1", 0, 2, 1 << 16, 100, 100,
                Duration.ofSeconds(10), 1000, Duration.ofSeconds(30), new ScoringServer.Tls(cert, key));
        try (ScoringServer server = start(settings, bundleA)) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            try (InputStream in = Files.newInputStream(cert)) {
                trust.setCertificateEntry("serve", CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            HttpClient https = HttpClient.newBuilder().sslContext(ssl).build();
            URI base = URI.create("https://127.0.0.1:" + server.port());
            long k = TestTables.key(3);
            HttpResponse<String> r = https.send(score(base, k), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(expected(modelA, k), JSON.readTree(r.body()).get("scores").get(0).asDouble(), 1e-12);
            // A client that does not trust the certificate is refused, and plain HTTP gets no answer.
            assertThrows(SSLHandshakeException.class, () -> HttpClient.newHttpClient().send(score(base, k), HttpResponse.BodyHandlers.ofString()));
            assertThrows(java.io.IOException.class, () -> HttpClient.newHttpClient()
                    .send(score(URI.create("http://127.0.0.1:" + server.port()), k), HttpResponse.BodyHandlers.ofString()));
        }
    }

    @Test
    void badOptionsAreRefusedAtStartUp() {
        assertRefused("--max-request-bytes must be 1..67108864", "--max-request-bytes", "2147483647");
        assertRefused("--max-request-bytes must be 1..67108864", "--max-request-bytes", "0");
        assertRefused("--threads must be 1..1000", "--threads", "0");
        assertRefused("--max-examples must be 1..100000", "--max-examples", "1000000");
        assertRefused("--idle-timeout must be at least 1 second", "--idle-timeout", "0");
        assertRefused("--tls-cert and --tls-key go together", "--tls-cert", dir.resolve("x.pem").toString());
        assertRefused("--store needs --follow", "--store", dir.resolve("s").toString());
        assertRefused("--port must be 0..65535", "--port", "70000");
    }

    private static void assertRefused(String message, String... options) {
        List<String> args = new ArrayList<>(List.of("--bundle", bundleA.toString()));
        args.addAll(List.of(options));
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new ServeCommand()).setErr(new PrintWriter(err)).setOut(new PrintWriter(new StringWriter()));
        int exit = cli.execute(args.toArray(String[]::new));
        assertEquals(2, exit, String.join(" ", options) + ": " + err);
        assertTrue(err.toString().contains(message), String.join(" ", options) + ": " + err);
        assertTrue(err.toString().toLowerCase(Locale.ROOT).contains("usage"), err.toString());
    }
}
