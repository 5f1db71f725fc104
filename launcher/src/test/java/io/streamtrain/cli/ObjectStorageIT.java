package io.streamtrain.cli;

import static io.streamtrain.cli.HonestRunReportIT.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtrain.bundle.LocalBundle;
import io.streamtrain.cluster.FileSystemPlugins;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TestExamples;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Models on S3-compatible storage, end to end against a real S3 API server ({@link S3TestServer}),
 * around one model: {@code train --checkpoint-dir s3://…} through an injected failure counts every
 * record exactly once, and {@code export} reads that checkpoint from S3 into a bundle, which is
 * put on S3 too. Then: {@code score} reads the checkpoint and the bundle from S3;
 * {@code backfill --from-savepoint s3://…} and {@code train --from-savepoint s3://…} continue the
 * model, each exactly once; {@code serve --bundle s3://… --follow} answers as {@code score} does and
 * reloads another bundle on S3. Credentials come from where the commands are told ({@code -D}, a Flink
 * configuration file) or, given none, from the environment ({@code AWS_ACCESS_KEY_ID}, …, in
 * launcher processes of their own); a wrong one is a clear error within seconds; no secret is printed.
 */
class ObjectStorageIT {
    private static final String BUCKET = "models";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KafkaFixture kafka = KafkaFixture.shared();
    private static final TestExamples examples = new TestExamples(7);

    @TempDir
    static Path dir;
    private static S3TestServer s3;
    private static String topic;
    private static String checkpoints;
    private static String remoteBundle;
    private static List<ExportedRow> rows;
    private static HonestRunReportIT.Run train;
    /** Examples to score, one per line (libffm), and their scores by {@code score --checkpoint}. */
    private static Path input;
    private static List<Double> expected;

    @BeforeAll
    static void trainAndExportOnS3() throws Exception {
        topic = "s3-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        s3 = S3TestServer.start(dir.resolve("s3"), BUCKET);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 3_000);
        }
        checkpoints = "s3://" + BUCKET + "/" + topic + "/checkpoints";

        train = cli(job("train", "--checkpoint-dir", checkpoints, "--inject-failure-after", "1000", "--model-updates-topic", updates()));
        assertEquals(0, train.exitCode(), train.out() + train.err());
        assertEquals(3_000, Long.parseLong(train.summary().group(1)), train.out());
        Matcher restarts = Pattern.compile(" restarts=(\\d+) ").matcher(train.out());
        assertTrue(restarts.find() && Long.parseLong(restarts.group(1)) >= 1, "the injected failure restarted the job: " + train.out());
        assertTrue(Files.list(dir.resolve("s3/data").resolve(BUCKET).resolve(topic).resolve("checkpoints")).findAny().isPresent(),
                "the checkpoints are in the bucket");
        Path local = ModelStorage.local(checkpoints);
        rows = CheckpointRows.readAll(LatestCheckpoint.in(local), ModelInfo.read(local));
        examples.assertCountedExactlyOnce(rows);

        Path jsonl = dir.resolve("rows.jsonl");
        Path bundle = dir.resolve("bundle");
        HonestRunReportIT.Run export = cli(withS3("export", "--checkpoint", checkpoints, "--out", jsonl.toString(), "--bundle", bundle.toString()));
        assertEquals(0, export.exitCode(), export.out() + export.err());
        assertEquals(rows.size(), Files.readAllLines(jsonl).size(), "export wrote every row of the checkpoint on S3");
        remoteBundle = "s3://" + BUCKET + "/" + topic + "/bundle";
        upload(bundle, ModelStorage.local(remoteBundle));

        input = Files.write(dir.resolve("input.libffm"), scoringLines());
        Path scores = dir.resolve("scores-checkpoint.txt");
        HonestRunReportIT.Run score = cli(withS3("score", "--checkpoint", checkpoints, "--file", input.toString(), "--format", "libffm",
                "--out", scores.toString()));
        assertEquals(0, score.exitCode(), score.out() + score.err());
        expected = Files.readAllLines(scores).stream().map(Double::parseDouble).toList();
        assertFalse(expected.isEmpty());
    }

    @AfterAll
    static void stopS3() throws Exception {
        FileSystemPlugins.initialize(new org.apache.flink.configuration.Configuration());
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void scoreReadsABundleOnS3() throws Exception {
        Path scores = dir.resolve("scores-bundle.txt");
        HonestRunReportIT.Run score = cli(withS3("score", "--bundle", remoteBundle, "--file", input.toString(), "--format", "libffm",
                "--out", scores.toString()));
        assertEquals(0, score.exitCode(), score.out() + score.err());
        assertSameScores(Files.readAllLines(scores).stream().map(Double::parseDouble).toList());
    }

    @Test
    void backfillAndTrainContinueFromSavepointsOnS3() throws Exception {
        // A backfill continues the S3 checkpoint over the whole topic: the records the model has are
        // dropped (its batchers restore their offsets), the new ones trained, exactly once.
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 500);
            String backfillOut = "s3://" + BUCKET + "/" + topic + "/backfill";
            HonestRunReportIT.Run backfill = cli(job("backfill", "--from-savepoint", checkpoints, "--out-savepoint", backfillOut));
            assertEquals(0, backfill.exitCode(), backfill.out() + backfill.err());
            Path backfilled = ModelStorage.local(backfillOut);
            examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(backfilled), ModelInfo.read(backfilled)));

            // Streaming continues from the backfill's savepoint on S3 where its range ended: only what is new.
            examples.produce(producer, topic, 500);
            String continued = "s3://" + BUCKET + "/" + topic + "/continued";
            HonestRunReportIT.Run resumed = cli(job("train", "--checkpoint-dir", continued, "--from-savepoint", backfillOut));
            assertEquals(0, resumed.exitCode(), resumed.out() + resumed.err());
            assertEquals(500, Long.parseLong(resumed.summary().group(1)), resumed.out());
            Path continuedDir = ModelStorage.local(continued);
            examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(continuedDir), ModelInfo.read(continuedDir)));
        }
    }

    @Test
    void aWrongSecretFailsFastWithoutPrintingIt() {
        long started = System.nanoTime();
        HonestRunReportIT.Run denied = cli(withSettings(s3.settings("wrong-secret"), "export", "--checkpoint", checkpoints,
                "--out", dir.resolve("denied.jsonl").toString()));
        double seconds = (System.nanoTime() - started) / 1e9;
        assertEquals(1, denied.exitCode(), denied.out() + denied.err());
        assertNamesTheRefusal(denied.err());
        assertFalse(denied.err().contains("wrong-secret") || train.err().contains(S3TestServer.SECRET_KEY), "no secret is printed");
        assertTrue(seconds < 30, "a wrong key fails fast, not after retries: " + seconds + " s");
    }

    /**
     * Launcher processes given no keys take AWS's from the environment, as S3A's default chain
     * reads them: {@code export} (the endpoint as {@code -D}) and {@code score} (the endpoint in
     * {@code --flink-conf}); a wrong secret in the environment is refused within seconds and not printed,
     * not even with {@code --verbose}'s stack trace.
     */
    @Test
    void credentialsFromTheEnvironment() throws Exception {
        Path jsonl = dir.resolve("env-rows.jsonl");
        List<String> export = new ArrayList<>(List.of("export", "--checkpoint", checkpoints, "--out", jsonl.toString()));
        export.addAll(dynamicProperties(endpointOnly()));
        LauncherProcess.Result exported = LauncherProcess.run(awsEnvironment(S3TestServer.SECRET_KEY), dir.resolve("env-export.log"),
                export.toArray(String[]::new));
        assertEquals(0, exported.exitCode(), exported.output());
        assertEquals(rows.size(), Files.readAllLines(jsonl).size(), "export with the environment's keys wrote every row");

        Path conf = dir.resolve("flink-conf");
        writeFlinkConf(conf, endpointOnly());
        Path scores = dir.resolve("env-scores.txt");
        LauncherProcess.Result scored = LauncherProcess.run(awsEnvironment(S3TestServer.SECRET_KEY), dir.resolve("env-score.log"),
                "score", "--flink-conf", conf.toString(), "--bundle", remoteBundle, "--file", input.toString(), "--format", "libffm",
                "--out", scores.toString());
        assertEquals(0, scored.exitCode(), scored.output());
        assertSameScores(Files.readAllLines(scores).stream().map(Double::parseDouble).toList());
        assertFalse(scored.output().contains(S3TestServer.SECRET_KEY) || exported.output().contains(S3TestServer.SECRET_KEY), "no secret is printed");
        System.err.printf(Locale.ROOT, "launcher processes: export %.1f s, score %.1f s%n", exported.seconds(), scored.seconds());

        String wrong = "wrong-environment-secret";
        export.set(export.indexOf(jsonl.toString()), dir.resolve("env-denied.jsonl").toString());
        export.add("--verbose");
        LauncherProcess.Result denied = LauncherProcess.run(awsEnvironment(wrong), dir.resolve("env-denied.log"), export.toArray(String[]::new));
        assertEquals(1, denied.exitCode(), denied.output());
        assertNamesTheRefusal(denied.output());
        assertFalse(denied.output().contains(wrong), "no secret is printed: " + denied.output());
        assertTrue(denied.seconds() < 40, "a wrong key fails fast, not after retries: " + denied.seconds() + " s");
        System.err.printf(Locale.ROOT, "launcher processes: refused export %.1f s%n", denied.seconds());
    }

    /**
     * {@code serve --bundle s3://… --follow}, its keys and endpoint from {@code --flink-conf}: ready
     * once loaded and caught up with the training run's updates, scores as {@code score} does, and
     * {@code POST /admin/reload} switches to another bundle on S3 (followed as well).
     */
    @Test
    void serveFollowsABundleOnS3AndReloadsAnotherOne() throws Exception {
        Path conf = dir.resolve("serve-conf");
        writeFlinkConf(conf, s3.settings(S3TestServer.SECRET_KEY));
        String secondBundle = "s3://" + BUCKET + "/" + topic + "/bundle-2";
        upload(ModelStorage.local(remoteBundle), ModelStorage.local(secondBundle));
        Path log = dir.resolve("serve.log");
        Process serve = LauncherProcess.start(Map.of(), log,
                "serve", "--flink-conf", conf.toString(), "--bundle", remoteBundle, "--port", "0",
                "--follow", updates(), "--bootstrap", kafka.bootstrapServers());
        try {
            int port = LauncherProcess.servingPort(serve, log);
            HttpClient http = HttpClient.newHttpClient();
            awaitReady(http, port);
            assertSameScores(served(http, port));

            HttpResponse<String> reload = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/reload"))
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("bundle", secondBundle)))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, reload.statusCode(), reload.body());
            assertEquals(secondBundle, JSON.readTree(reload.body()).get("bundle").asText(), "now serving the other bundle on S3");
            assertSameScores(served(http, port));

            serve.destroy();
            assertTrue(serve.waitFor(60, TimeUnit.SECONDS), "serve stops on SIGTERM");
            String output = Files.readString(log);
            assertEquals(0, serve.exitValue(), output);
            assertTrue(output.contains("serve: following " + updates()), output);
            assertFalse(output.contains(S3TestServer.SECRET_KEY), "no secret is printed");
        } finally {
            serve.destroyForcibly();
        }
    }

    /**
     * {@code POST /admin/reload} of the same s3:// path after a new bundle was uploaded there, under
     * load from a real HTTP client: every request answered, the scores now the new bundle's, served
     * from a new local copy, and the old copy deleted once its model is closed.
     */
    @Test
    void reloadingTheSamePathAfterANewUploadServesItFromAFreshCopy() throws Exception {
        String path = "s3://" + BUCKET + "/" + topic + "/same-path";
        Path log = dir.resolve("serve-same-path.log");
        Process serve = serveTheFirstBundleFrom(path, log);
        try {
            int port = LauncherProcess.servingPort(serve, log);
            HttpClient http = HttpClient.newHttpClient();
            Path first = copies(log).get(0);
            assertTrue(Files.isRegularFile(first.resolve("model-card.json")), "the first copy is open: " + first);

            SecondModel b = secondModel();
            upload(b.bundle(), ModelStorage.local(path));
            try (ScoringLoad load = new ScoringLoad(http, port, scoringRequest(), scores -> close(expected, scores) || close(b.scores(), scores), 4)) {
                load.awaitAnswers(50);
                HttpResponse<String> reload = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/reload"))
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("bundle", path)))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, reload.statusCode(), reload.body());
                load.awaitAnswers(load.answered() + 50);
            }
            assertSameScores(b.scores(), served(http, port));
            List<Path> copies = copies(log);
            assertEquals(2, copies.size(), "one copy per load: " + copies);
            assertTrue(Files.isRegularFile(copies.get(1).resolve("model-card.json")), "the new copy is served: " + copies.get(1));
            awaitGone(first);

            serve.destroy();
            assertTrue(serve.waitFor(60, TimeUnit.SECONDS), "serve stops on SIGTERM");
            assertEquals(0, serve.exitValue(), Files.readString(log));
        } finally {
            serve.destroyForcibly();
        }
    }

    /**
     * {@code serve --watch} of an s3:// bundle: a new bundle uploaded to the same path is noticed
     * and served (from a new copy, the old one deleted) without being asked for.
     */
    @Test
    void aWatchedBundleOnS3IsReloadedWhenANewOneIsUploadedToItsPath() throws Exception {
        String path = "s3://" + BUCKET + "/" + topic + "/watched";
        Path log = dir.resolve("serve-watched.log");
        Process serve = serveTheFirstBundleFrom(path, log, "--watch", "1");
        try {
            int port = LauncherProcess.servingPort(serve, log);
            HttpClient http = HttpClient.newHttpClient();
            Thread.sleep(3_000); // checks that find nothing changed reload nothing
            assertEquals(1, copies(log).size(), "no reload while the bundle is unchanged: " + Files.readString(log));

            SecondModel b = secondModel();
            upload(b.bundle(), ModelStorage.local(path));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!close(b.scores(), served(http, port)) && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
            assertSameScores(b.scores(), served(http, port));
            List<Path> copies = copies(log);
            assertTrue(copies.size() >= 2, "a new copy for the changed bundle: " + copies);
            awaitGone(copies.get(0));
        } finally {
            serve.destroyForcibly();
        }
    }

    /** Waits (at most a minute) until {@code /health/ready} answers 200: the bundle from S3 open and its follower caught up. */
    private static void awaitReady(HttpClient http, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        HttpResponse<String> ready;
        while ((ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready")).build(),
                HttpResponse.BodyHandlers.ofString())).statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertEquals(200, ready.statusCode(), "ready once the bundle from S3 is open and followed: " + ready.body());
    }

    /** The scores {@code serve} answers for {@link #input}, in one request of feature lists. */
    private static List<Double> served(HttpClient http, int port) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/score"))
                .POST(HttpRequest.BodyPublishers.ofString(scoringRequest())).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertEquals(200, response.statusCode(), response.body());
        List<Double> scores = new ArrayList<>();
        JSON.readTree(response.body()).get("scores").forEach(s -> scores.add(s.asDouble()));
        return scores;
    }

    /** Uploads the first bundle to {@code path} and serves it from there until it answers with the first model's scores. */
    private static Process serveTheFirstBundleFrom(String path, Path log, String... more) throws Exception {
        upload(ModelStorage.local(remoteBundle), ModelStorage.local(path));
        Process serve = startServe(log, path, more);
        try {
            int port = LauncherProcess.servingPort(serve, log);
            HttpClient http = HttpClient.newHttpClient();
            awaitReady(http, port);
            assertSameScores(served(http, port));
            return serve;
        } catch (Exception | AssertionError e) {
            serve.destroyForcibly();
            throw e;
        }
    }

    /** {@code serve} of {@code bundle} with the S3 server's settings from {@code --flink-conf}, more options after. */
    private static Process startServe(Path log, String bundle, String... more) throws Exception {
        Path conf = dir.resolve("serve-conf");
        writeFlinkConf(conf, s3.settings(S3TestServer.SECRET_KEY));
        List<String> args = new ArrayList<>(List.of("serve", "--flink-conf", conf.toString(), "--bundle", bundle, "--port", "0"));
        args.addAll(List.of(more));
        return LauncherProcess.start(Map.of(), log, args.toArray(String[]::new));
    }

    private static final Pattern COPIED = Pattern.compile("serve: s3://\\S+ copied to (\\S+)");

    /** The local copies {@code serve} made of bundles on S3, in order, as it names them. */
    private static List<Path> copies(Path log) throws Exception {
        Matcher m = COPIED.matcher(Files.readString(log));
        List<Path> copies = new ArrayList<>();
        while (m.find()) {
            copies.add(Path.of(m.group(1)));
        }
        return copies;
    }

    /** Waits (at most 30 s) until a replaced model's local copy is deleted. */
    private static void awaitGone(Path copy) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.exists(copy) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertFalse(Files.exists(copy), "the replaced model's copy is deleted: " + copy);
    }

    /** Another model than the first (its own topic, trained with Adagrad: scores that are not saturated), its bundle and its scores of {@link #input}. */
    private record SecondModel(Path bundle, List<Double> scores) {}

    private static SecondModel second;

    private static synchronized SecondModel secondModel() throws Exception {
        if (second == null) {
            String other = topic + "-b";
            kafka.createTopic(other, 2);
            try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
                new TestExamples(8).produce(producer, other, 2_000);
            }
            Path checkpointDir = dir.resolve("second-checkpoints");
            HonestRunReportIT.Run trained = cli("train", "--bootstrap", kafka.bootstrapServers(), "--topic", other, "--name", other,
                    "--optimizer", "adagrad", "--batch-size", "64", "--max-wait", "200ms", "--checkpoint-interval", "1s",
                    "--checkpoint-dir", checkpointDir.toString(), "--until-idle", "3s", "--prometheus-port", "off");
            assertEquals(0, trained.exitCode(), trained.out() + trained.err());
            Path bundle = dir.resolve("second-bundle");
            HonestRunReportIT.Run exported = cli("export", "--checkpoint", checkpointDir.toString(), "--bundle", bundle.toString());
            assertEquals(0, exported.exitCode(), exported.out() + exported.err());
            Path scores = dir.resolve("second-scores.txt");
            HonestRunReportIT.Run scored = cli("score", "--bundle", bundle.toString(), "--file", input.toString(), "--format", "libffm",
                    "--out", scores.toString());
            assertEquals(0, scored.exitCode(), scored.out() + scored.err());
            List<Double> values = Files.readAllLines(scores).stream().map(Double::parseDouble).toList();
            assertFalse(close(expected, values), "the second model scores otherwise than the first: " + values + " vs " + expected);
            second = new SecondModel(bundle, values);
        }
        return second;
    }

    /** {@link #input} as one {@code /score} request of feature lists. */
    private static String scoringRequest() throws Exception {
        ObjectNode request = JSON.createObjectNode();
        ArrayNode batch = request.putArray("examples");
        for (String line : Files.readAllLines(input)) {
            String[] feature = line.split(" ")[1].split(":");
            batch.addObject().putArray("features").addObject()
                    .put("field", Integer.parseInt(feature[0])).put("id", Long.parseLong(feature[1])).put("value", 1.0);
        }
        return JSON.writeValueAsString(request);
    }

    /** The topic the first training run publishes its model updates to, which {@code serve --follow} applies. */
    private static String updates() {
        return topic + ".updates";
    }

    private static String[] job(String command, String... more) {
        List<String> args = new ArrayList<>(List.of(command, "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                "--optimizer", "count", "--batch-size", "64", "--max-wait", "200ms", "--checkpoint-interval", "1s"));
        if (command.equals("train")) {
            args.addAll(List.of("--until-idle", "3s", "--prometheus-port", "off"));
        }
        args.addAll(List.of(more));
        return withS3(args.toArray(String[]::new));
    }

    /** A command with the server's settings and keys as {@code -D}. */
    private static String[] withS3(String... args) {
        return withSettings(s3.settings(S3TestServer.SECRET_KEY), args);
    }

    private static String[] withSettings(Map<String, String> settings, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(dynamicProperties(settings));
        return all.toArray(String[]::new);
    }

    private static List<String> dynamicProperties(Map<String, String> settings) {
        return settings.entrySet().stream().map(e -> "-D" + e.getKey() + "=" + e.getValue()).sorted().toList();
    }

    /** The server's settings without its keys. */
    private static Map<String, String> endpointOnly() {
        Map<String, String> settings = new java.util.HashMap<>(s3.settings(S3TestServer.SECRET_KEY));
        settings.remove("s3.access-key");
        settings.remove("s3.secret-key");
        return settings;
    }

    private static Map<String, String> awsEnvironment(String secretKey) {
        return Map.of("AWS_ACCESS_KEY_ID", S3TestServer.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", secretKey);
    }

    /** A Flink configuration directory whose {@code config.yaml} holds {@code settings}. */
    private static void writeFlinkConf(Path confDir, Map<String, String> settings) throws Exception {
        Files.createDirectories(confDir);
        Files.write(confDir.resolve("config.yaml"), settings.entrySet().stream().map(e -> e.getKey() + ": \"" + e.getValue() + "\"").sorted().toList());
    }

    private static void assertNamesTheRefusal(String output) {
        assertTrue(output.contains("403") || output.toLowerCase(Locale.ROOT).contains("access denied")
                || output.contains("SignatureDoesNotMatch"), "the error names the refusal: " + output);
    }

    /** One line per exported sparse row, its feature alone. */
    private static List<String> scoringLines() {
        return rows.stream().filter(r -> r.field() >= 0 && r.field() < 4).limit(50)
                .map(r -> String.format(Locale.ROOT, "1 %d:%d:1", r.field(), r.id())).toList();
    }

    private static void assertSameScores(List<Double> actual) {
        assertSameScores(expected, actual);
    }

    /** Whether {@code actual} are the scores {@code expected}, each within 1e-6. */
    private static boolean close(List<Double> expected, List<Double> actual) {
        if (expected.size() != actual.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            if (Math.abs(expected.get(i) - actual.get(i)) > 1e-6) {
                return false;
            }
        }
        return true;
    }

    private static void assertSameScores(List<Double> expected, List<Double> actual) {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), 1e-6, "score " + i);
        }
    }

    /** Copies a directory tree to a location, local or remote, file by file, through Flink's file system. */
    private static void upload(Path from, Path to) throws Exception {
        FileSystemPlugins.initialize(s3.configuration()); // as a command does from its settings
        try (LocalBundle source = LocalBundle.of(from); Stream<Path> files = Files.walk(source.dir())) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                ModelStorage.write(to.resolve(source.dir().relativize(file).toString()), Files.readAllBytes(file));
            }
        }
    }
}
