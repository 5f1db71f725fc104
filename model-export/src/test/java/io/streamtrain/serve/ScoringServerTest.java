package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.schema.FeatureKey;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serve's HTTP API over a real bundle: scores equal the checkpoint model's, bad requests get clear 4xx. */
class ScoringServerTest {
    private static final ModelInfo INFO = TestTables.info("fm", 4);
    private static final int ROWS = 2000;
    private static final int MAX_BYTES = 64 * 1024;
    private static final int MAX_EXAMPLES = 50;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    static Bundle bundle;
    static ScoringServer server;
    static LoadedModel checkpointModel;
    static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        Path savepoint = TestTables.write(dir.resolve("savepoint"), INFO, ROWS);
        BundleWriter.write(savepoint, INFO, ModelCard.FeatureMapping.of("libffm", 24), dir.resolve("bundle"),
                new PrintStream(OutputStream.nullOutputStream()), 1000);
        checkpointModel = LoadedModel.load(savepoint, INFO);
        bundle = Bundle.open(dir.resolve("bundle"));
        server = new ScoringServer(ScoringServer.Settings.of("127.0.0.1", 0, 4, MAX_BYTES, MAX_EXAMPLES, 100),
                ServedModel.open(dir.resolve("bundle")), ServedModel::open);
        http = HttpClient.newBuilder().connectTimeout(java.time.Duration.ofSeconds(10)).build();
    }

    @AfterAll
    static void stop() {
        server.close();
        bundle.close();
    }

    @Test
    void concurrentRequestsGetTheCheckpointModelsScores() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(8);
        List<Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            long seed = t;
            done.add(clients.submit(() -> {
                Random random = new Random(seed);
                int checked = 0;
                for (int r = 0; r < 60; r++) {
                    int n = r % 3 == 0 ? 1 + random.nextInt(20) : 1;
                    List<long[]> keys = new ArrayList<>();
                    List<float[]> values = new ArrayList<>();
                    StringBuilder body = new StringBuilder("{\"examples\": [");
                    for (int e = 0; e < n; e++) {
                        long[] k = distinctKeys(random);
                        float[] v = new float[k.length];
                        body.append(e > 0 ? "," : "").append("{\"features\": [");
                        for (int i = 0; i < k.length; i++) {
                            v[i] = random.nextFloat() * 2;
                            body.append(i > 0 ? "," : "").append(String.format(Locale.ROOT, "{\"field\": %d, \"id\": %d, \"value\": %s}",
                                    FeatureKey.field(k[i]), FeatureKey.id(k[i]), Float.toString(v[i])));
                        }
                        body.append("]}");
                        keys.add(k);
                        values.add(v);
                    }
                    HttpResponse<String> response = post(body.append("]}").toString());
                    assertEquals(200, response.statusCode(), response.body());
                    JsonNode scores = JSON.readTree(response.body()).get("scores");
                    assertEquals(n, scores.size());
                    for (int e = 0; e < n; e++) {
                        assertEquals(checkpointModel.predict(keys.get(e), values.get(e)), scores.get(e).doubleValue(), 1e-12);
                        checked++;
                    }
                }
                return checked;
            }));
        }
        int checked = 0;
        for (Future<Integer> f : done) {
            checked += f.get();
        }
        clients.shutdown();
        assertTrue(checked >= 480, "every client checked its scores: " + checked);
        assertTrue(server.metrics().requests() >= 480);
    }

    /** Known rows and never-seen ones, sorted and distinct as ExampleRows makes them. */
    private static long[] distinctKeys(Random random) {
        java.util.TreeSet<Long> keys = new java.util.TreeSet<>();
        int n = 1 + random.nextInt(8);
        while (keys.size() < n) {
            keys.add(random.nextInt(4) == 0 ? FeatureKey.of(9, random.nextInt(1000)) : TestTables.key(random.nextInt(ROWS)));
        }
        return keys.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void aRawLineScoresLikeItsFeatures() throws Exception {
        long a = TestTables.key(10);
        long b = TestTables.key(11);
        String line = String.format(Locale.ROOT, "1 %d:%d:1 %d:%d:0.5", FeatureKey.field(a), FeatureKey.id(a), FeatureKey.field(b), FeatureKey.id(b));
        double expected = checkpointModel.predict(new long[] {Math.min(a, b), Math.max(a, b)},
                a < b ? new float[] {1f, 0.5f} : new float[] {0.5f, 1f});
        HttpResponse<String> response = post("{\"line\": \"" + line + "\"}");
        assertEquals(200, response.statusCode(), response.body());
        assertEquals(expected, JSON.readTree(response.body()).get("scores").get(0).doubleValue(), 1e-12);
    }

    @Test
    void anUnknownFeatureScoresAsTheBiasAlone() throws Exception {
        HttpResponse<String> response = post("{\"features\": [{\"field\": 12, \"id\": 99999}]}");
        assertEquals(200, response.statusCode(), response.body());
        double biasOnly = 1 / (1 + Math.exp(-bundle.bias()[0]));
        assertEquals(biasOnly, JSON.readTree(response.body()).get("scores").get(0).doubleValue(), 1e-7);
    }

    @Test
    void badRequestsGet400WithTheReason() throws Exception {
        assertRejected(400, "{\"features\": [", "malformed JSON");
        assertRejected(400, "", "empty body");
        assertRejected(400, "[1, 2]", "expected a JSON object");
        assertRejected(400, "{\"features\": []} {}", "malformed JSON");
        assertRejected(400, "{\"feature\": []}", "unknown field 'feature'");
        assertRejected(400, "{\"examples\": [], \"x\": 1}", "unknown field 'x'");
        assertRejected(400, "{\"examples\": []}", "'examples' is empty");
        assertRejected(400, "{\"features\": [{\"field\": 1, \"id\": 2, \"weight\": 1}]}", "unknown field 'weight'");
        assertRejected(400, "{\"features\": [{\"field\": 1}]}", "features[0].id is missing");
        assertRejected(400, "{\"features\": [{\"field\": \"a\", \"id\": 2}]}", "field: expected an integer");
        assertRejected(400, "{\"features\": [{\"field\": 1.5, \"id\": 2}]}", "field: expected an integer");
        assertRejected(400, "{\"features\": [{\"field\": 65535, \"id\": 0}]}", "out of range");
        assertRejected(400, "{\"features\": [{\"field\": 1, \"id\": -3}]}", "out of range");
        assertRejected(400, "{\"features\": [{\"field\": 1, \"id\": 2, \"value\": 1e39}]}", "not a finite float");
        assertRejected(400, "{\"features\": [{\"field\": 1, \"id\": 2, \"field\": 3}]}", "Duplicate field");
        assertRejected(400, "{\"features\": [], \"line\": \"1 1:1:1\"}", "exactly one of");
        assertRejected(400, "{\"line\": \"1 not-a-feature\"}", "not a libffm line: unparsable");
        assertRejected(400, "{\"line\": 7}", "expected a string");
        StringBuilder many = new StringBuilder("{\"features\": [");
        for (int i = 0; i < 101; i++) {
            many.append(i > 0 ? "," : "").append("{\"field\": 1, \"id\": ").append(i).append("}");
        }
        assertRejected(400, many.append("]}").toString(), "101 features; at most 100");
    }

    @Test
    void tooManyExamplesGet413() throws Exception {
        StringBuilder body = new StringBuilder("{\"examples\": [");
        for (int i = 0; i <= MAX_EXAMPLES; i++) {
            body.append(i > 0 ? "," : "").append("{\"features\": [{\"field\": 1, \"id\": 1}]}");
        }
        assertRejected(413, body.append("]}").toString(), (MAX_EXAMPLES + 1) + " examples in one request");
    }

    @Test
    void aHugeDeclaredBodyGets413BeforeItIsSent() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // Read the answer, not until EOF: the server waits for the body until this client hangs up.
            String response = readResponse(socket.getInputStream());
            assertTrue(response.startsWith("HTTP/1.1 413"), response);
            assertTrue(response.toLowerCase(Locale.ROOT).contains("connection: close"), response);
            assertTrue(response.contains("request body of 100000000 bytes; at most " + MAX_BYTES), response);
        }
        assertEquals(200, post("{\"features\": [{\"field\": 1, \"id\": 1}]}").statusCode(), "the server still serves");
    }

    /** Status line, headers and the Content-Length body of one HTTP/1.1 response. */
    private static String readResponse(InputStream in) throws java.io.IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        byte[] body = length.find() ? in.readNBytes(Integer.parseInt(length.group(1))) : new byte[0];
        return head + new String(body, StandardCharsets.UTF_8);
    }

    @Test
    void aHugeChunkedBodyGets413() throws Exception {
        byte[] big = new byte[MAX_BYTES * 2];
        java.util.Arrays.fill(big, (byte) ' ');
        HttpRequest request = request(uri("/score"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> (InputStream) new ByteArrayInputStream(big))).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(413, response.statusCode(), response.body());
        assertTrue(response.body().contains("over " + MAX_BYTES + " bytes"), response.body());
    }

    @Test
    void routingIsExactAndHeadWorksWhereGetDoes() throws Exception {
        HttpResponse<String> get = http.send(request(uri("/score")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode());
        assertEquals("POST", get.headers().firstValue("Allow").orElse(""));
        for (String path : List.of("/predict", "/healthz", "/scoreboard", "/score/", "/health", "/metrics/x", "/v2/models/test/infer/x")) {
            HttpResponse<String> missing = http.send(request(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, missing.statusCode(), path);
            assertTrue(missing.body().contains("POST /score"), missing.body());
        }
        assertEquals(404, post("/scoreboard", "{}").statusCode());
        for (String path : List.of("/health/live", "/health/ready", "/metrics", "/model", "/v2/health/ready", "/v2/models/test")) {
            HttpResponse<String> full = http.send(request(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> head = http.send(request(uri(path)).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, full.statusCode(), path);
            assertEquals(200, head.statusCode(), path);
            assertEquals("", head.body(), path);
            assertEquals(full.headers().firstValue("Content-Type"), head.headers().firstValue("Content-Type"), path);
        }
        HttpResponse<String> postToGet = post("/health/ready", "{}");
        assertEquals(405, postToGet.statusCode());
        assertEquals("GET, HEAD", postToGet.headers().firstValue("Allow").orElse(""));
    }

    @Test
    void modelLivenessReadinessAndPrometheusMetrics() throws Exception {
        JsonNode card = JSON.readTree(get("/model").body());
        assertEquals(bundle.card(), JSON.treeToValue(card, ModelCard.class));
        assertEquals(200, get("/health/live").statusCode());
        HttpResponse<String> ready = get("/health/ready");
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(JSON.readTree(ready.body()).get("ready").asBoolean());
        assertEquals(bundle.card().checkpoint().id(), JSON.readTree(ready.body()).get("checkpoint").asLong());
        assertEquals(200, post("{\"features\": [{\"field\": 1, \"id\": 1}]}").statusCode());
        assertEquals(400, post("{").statusCode());
        HttpResponse<String> metrics = get("/metrics");
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"), metrics.headers().toString());
        String text = metrics.body();
        assertTrue(metric(text, "streamtrain_serve_requests_total{route=\"/score\",code=\"200\",}") >= 1, text);
        assertTrue(metric(text, "streamtrain_serve_requests_total{route=\"/score\",code=\"400\",}") >= 1, text);
        assertTrue(metric(text, "streamtrain_serve_request_duration_seconds_count{route=\"/score\",}") >= 2, text);
        assertTrue(metric(text, "streamtrain_serve_examples_scored_total") >= 1, text);
        assertEquals(bundle.card().checkpoint().id(), metric(text, "streamtrain_serve_model_version"), text);
        assertEquals(1, metric(text, "streamtrain_serve_ready"), text);
        assertEquals(ROWS, metric(text, "streamtrain_serve_model_rows"), text);
        assertFalse(text.contains("NaN"), text);
    }

    /** The value of the sample with exactly this name and labels in a Prometheus text scrape. */
    static double metric(String scrape, String sample) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        throw new AssertionError("no sample " + sample + " in\n" + scrape);
    }

    @Test
    void kserveV2InferScoresLikeScore() throws Exception {
        long a = TestTables.key(20);
        long b = TestTables.key(21);
        long[] ab = {Math.min(a, b), Math.max(a, b)};
        float[] values = {1f, 0.5f};
        String request = String.format(Locale.ROOT, "{\"id\": \"r1\", \"inputs\": ["
                + "{\"name\": \"field\", \"datatype\": \"INT64\", \"shape\": [2, 2], \"data\": [[%d, %d], [%d, -1]]},"
                + "{\"name\": \"id\", \"datatype\": \"INT64\", \"shape\": [2, 2], \"data\": [%d, %d, %d, 0]},"
                + "{\"name\": \"value\", \"datatype\": \"FP32\", \"shape\": [2, 2], \"data\": [1.0, 0.5, 1.0, 0.0]}]}",
                FeatureKey.field(ab[0]), FeatureKey.field(ab[1]), FeatureKey.field(a),
                FeatureKey.id(ab[0]), FeatureKey.id(ab[1]), FeatureKey.id(a));
        HttpResponse<String> response = post("/v2/models/test/infer", request);
        assertEquals(200, response.statusCode(), response.body());
        JsonNode answer = JSON.readTree(response.body());
        assertEquals("test", answer.get("model_name").asText());
        assertEquals(Long.toString(bundle.card().checkpoint().id()), answer.get("model_version").asText());
        assertEquals("r1", answer.get("id").asText());
        JsonNode out = answer.get("outputs").get(0);
        assertEquals("score", out.get("name").asText());
        assertEquals("FP64", out.get("datatype").asText());
        assertEquals(2, out.get("shape").get(0).asInt());
        assertEquals(checkpointModel.predict(ab, values), out.get("data").get(0).doubleValue(), 1e-12);
        assertEquals(checkpointModel.predict(new long[] {a}, new float[] {1f}), out.get("data").get(1).doubleValue(), 1e-12);

        String line = String.format(Locale.ROOT, "1 %d:%d:1", FeatureKey.field(a), FeatureKey.id(a));
        HttpResponse<String> lines = post("/v2/models/test/versions/" + bundle.card().checkpoint().id() + "/infer",
                "{\"inputs\": [{\"name\": \"line\", \"datatype\": \"BYTES\", \"shape\": [1], \"data\": [\"" + line + "\"]}]}");
        assertEquals(200, lines.statusCode(), lines.body());
        assertEquals(checkpointModel.predict(new long[] {a}, new float[] {1f}),
                JSON.readTree(lines.body()).get("outputs").get(0).get("data").get(0).doubleValue(), 1e-12);

        JsonNode metadata = JSON.readTree(get("/v2/models/test").body());
        assertEquals("test", metadata.get("name").asText());
        assertEquals("score", metadata.get("outputs").get(0).get("name").asText());
        assertEquals(200, get("/v2/models/test/ready").statusCode());
        assertEquals(200, get("/v2/health/live").statusCode());
        assertEquals(404, get("/v2/models/other").statusCode());
        assertEquals(404, post("/v2/models/other/infer", request).statusCode());
        assertEquals(404, post("/v2/models/test/versions/999999/infer", request).statusCode());
        HttpResponse<String> badShape = post("/v2/models/test/infer", "{\"inputs\": [{\"name\": \"field\", \"datatype\": \"INT64\","
                + " \"shape\": [1, 2], \"data\": [1]}, {\"name\": \"id\", \"datatype\": \"INT64\", \"shape\": [1, 2], \"data\": [1, 2]}]}");
        assertEquals(400, badShape.statusCode());
        assertTrue(badShape.body().contains("field.data: 1 elements for shape [1,2]"), badShape.body());
        HttpResponse<String> badType = post("/v2/models/test/infer",
                "{\"inputs\": [{\"name\": \"line\", \"datatype\": \"FP32\", \"shape\": [1], \"data\": [1]}]}");
        assertEquals(400, badType.statusCode());
        assertTrue(badType.body().contains("line.datatype"), badType.body());
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return http.send(request(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(request(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertRejected(int status, String body, String reason) throws Exception {
        HttpResponse<String> response = post(body);
        assertEquals(status, response.statusCode(), body + " -> " + response.body());
        JsonNode error = JSON.readTree(response.body());
        assertTrue(error.get("error").asText().contains(reason), body + " -> " + response.body());
    }

    private static HttpResponse<String> post(String body) throws Exception {
        return post("/score", body);
    }

    private static HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(java.time.Duration.ofSeconds(30));
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}
