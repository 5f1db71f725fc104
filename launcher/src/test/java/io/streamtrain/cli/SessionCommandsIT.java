package io.streamtrain.cli;

import static io.streamtrain.cli.HonestRunReportIT.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.cluster.FileSystemPlugins;
import io.streamtrain.cluster.SessionClusterFixture;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TestExamples;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train}, {@code backfill} and {@code join} with {@code --jobmanager}: each uploads the job
 * jar to a real session cluster of separate JVMs (Flink's own modules on its class path, nothing
 * of the project's) and then behaves as it does locally: progress lines, the summary line, and
 * stopping by itself ({@code --until-idle}, a backfill's range end, {@code --until-end}); with
 * checkpoints on S3 ({@link S3TestServer}) when the cluster's configuration names it.
 */
class SessionCommandsIT {
    private static final int BACKFILLED = 3_000;
    private static final int STREAMED = 2_000;
    private static final int IMPRESSIONS = 1_000;
    private static final int ON_S3 = 1_000;
    private static final String BUCKET = "models";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern JOIN_SUMMARY = Pattern.compile("join: impressions=(\\d+) clicks=(\\d+) examples=(\\d+) .*");

    private static final KafkaFixture kafka = KafkaFixture.shared();

    @TempDir
    static Path dir;

    private static S3TestServer s3;
    private static SessionClusterFixture session;

    /** The cluster's Flink configuration holds the S3 server's settings and keys, as a deployment's would. */
    @BeforeAll
    static void startTheSessionCluster() throws Exception {
        s3 = S3TestServer.start(dir.resolve("s3"), BUCKET);
        session = SessionClusterFixture.start(dir.resolve("cluster"), 1, 2, s3.configuration());
    }

    @AfterAll
    static void stopTheSessionCluster() throws Exception {
        try {
            if (session != null) {
                session.close();
            }
        } finally {
            FileSystemPlugins.initialize(new Configuration());
            if (s3 != null) {
                s3.close();
            }
        }
    }

    /**
     * The session's JobManager and TaskManager JVMs write the checkpoints and {@code model.json} to
     * S3 with the S3 plugin and keys of the cluster's configuration; the launcher reads them back with
     * its own ({@code -D}): every record counted exactly once, and {@code export} reads the model from S3.
     */
    @Test
    void trainingOnTheSessionClusterCheckpointsToS3() throws Exception {
        String topic = "session-s3-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        TestExamples examples = new TestExamples(11);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, ON_S3);
        }
        String checkpoints = "s3://" + BUCKET + "/" + topic + "/checkpoints";
        List<String> train = new ArrayList<>(List.of("train", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                "--optimizer", "count", "--batch-size", "64", "--max-wait", "200ms", "--checkpoint-interval", "1s", "--parallelism", "2",
                "--jobmanager", session.jobManager(), "--checkpoint-dir", checkpoints, "--until-idle", "1s", "--prometheus-port", "off"));
        train.addAll(s3.dynamicProperties());
        HonestRunReportIT.Run run = cli(train.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertEquals(ON_S3, Long.parseLong(run.summary().group(1)), run.out());
        assertTrue(run.err().contains("on session cluster " + session.restAddress()), run.err());
        // The S3 settings given as -D are the launcher's own (it reads model.json and the checkpoints); the
        // job gets none of them (SessionJobTest), and the cluster's configuration, which carries them, is named.
        assertTrue(run.err().contains("train: left out of the submitted job's configuration: "
                + String.join(", ", new TreeSet<>(s3.settings(S3TestServer.SECRET_KEY).keySet()))), "the settings left out are named: " + run.err());
        assertSecretNotServed(topic);
        assertSecretNotLogged(run.out() + run.err());
        Path model = ModelStorage.local(checkpoints);
        List<ExportedRow> rows = CheckpointRows.readAll(LatestCheckpoint.in(model), ModelInfo.read(model));
        examples.assertCountedExactlyOnce(rows);

        Path jsonl = dir.resolve(topic + ".jsonl");
        List<String> export = new ArrayList<>(List.of("export", "--checkpoint", checkpoints, "--out", jsonl.toString()));
        export.addAll(s3.dynamicProperties());
        HonestRunReportIT.Run exported = cli(export.toArray(String[]::new));
        assertEquals(0, exported.exitCode(), exported.out() + exported.err());
        assertEquals(rows.size(), Files.readAllLines(jsonl).size(), "export read every row of the session's checkpoint on S3");
    }

    @Test
    void aBackfillOnTheSessionClusterIsContinuedByTrainingThere() {
        String topic = "session-" + System.nanoTime();
        ingest(topic, BACKFILLED, 1);
        Path out = dir.resolve("backfill");
        HonestRunReportIT.Run backfill = cli(job("backfill", topic, "--out-savepoint", out.toString()));
        assertEquals(0, backfill.exitCode(), backfill.out() + backfill.err());
        assertEquals(BACKFILLED, Long.parseLong(backfill.summary().group(1)), backfill.out());
        assertTrue(backfill.err().contains("on session cluster " + session.restAddress()), backfill.err());
        assertTrue(backfill.err().contains("backfill: t="), "progress lines: " + backfill.err());

        ingest(topic, STREAMED, 2);
        Path checkpoints = dir.resolve("train");
        HonestRunReportIT.Run train = cli(job("train", topic, "--from-savepoint", out.toString(), "--checkpoint-dir", checkpoints.toString(),
                "--until-idle", "1s", "--prometheus-port", "off"));
        assertEquals(0, train.exitCode(), train.out() + train.err());
        assertEquals(STREAMED, Long.parseLong(train.summary().group(1)), "streaming goes on where the backfill ended: " + train.out());
        assertTrue(train.err().contains("on session cluster " + session.restAddress()), train.err());
        assertTrue(!train.progressRecords().isEmpty(), "progress lines: " + train.err());
        assertEquals(topic, assertDoesNotThrowRead(checkpoints).topic(), "the job recorded its model beside its checkpoints");
    }

    @Test
    void theJoinerRunsOnTheSessionClusterUntilTheEndOfItsInput() {
        String t = "session-join-" + System.nanoTime();
        HonestRunReportIT.Run events = cli("ingest", "--bootstrap", kafka.bootstrapServers(), "--synthetic-events", String.valueOf(IMPRESSIONS),
                "--seed", "3", "--impressions", t + ".impressions", "--clicks", t + ".clicks", "--truth", dir.resolve(t + ".json").toString(),
                "--window", "1m", "--interval", "50ms", "--click-delay", "10s", "--ctr", "0.2", "--duplicates", "0", "--beyond-window", "0");
        assertEquals(0, events.exitCode(), events.err());
        HonestRunReportIT.Run join = cli("join", "--bootstrap", kafka.bootstrapServers(), "--impressions", t + ".impressions",
                "--clicks", t + ".clicks", "--out", t + ".out", "--name", t, "--window", "1m", "--until-end",
                "--checkpoint-interval", "1s", "--checkpoint-dir", dir.resolve(t).toString(), "--jobmanager", session.jobManager());
        assertEquals(0, join.exitCode(), join.out() + join.err());
        Matcher summary = JOIN_SUMMARY.matcher(join.out().strip());
        assertTrue(summary.find(), join.out() + join.err());
        assertEquals(IMPRESSIONS, Long.parseLong(summary.group(1)), join.out());
        assertEquals(IMPRESSIONS, Long.parseLong(summary.group(3)), "one example per impression: " + join.out());
        assertTrue(join.err().contains("on session cluster " + session.restAddress()), join.err());
    }

    /** The job's configuration, as the cluster's REST API shows it to anyone who reaches it, keeps the S3 secret hidden. */
    private static void assertSecretNotServed(String jobName) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        JsonNode jobs = JSON.readTree(get(http, "/jobs/overview")).get("jobs");
        int seen = 0;
        for (JsonNode job : jobs) {
            if (job.get("name").asText().contains(jobName)) {
                for (String view : List.of("/jobmanager/config", "/config")) {
                    String body = get(http, "/jobs/" + job.get("jid").asText() + view);
                    assertFalse(body.contains(S3TestServer.SECRET_KEY), view + " shows the secret: " + body);
                }
                seen++;
            }
        }
        assertEquals(1, seen, "the training job among " + jobs);
    }

    /** Neither the launcher nor the cluster's JVMs print the S3 secret. */
    private static void assertSecretNotLogged(String launcherOutput) throws Exception {
        assertFalse(launcherOutput.contains(S3TestServer.SECRET_KEY), "the launcher printed the secret");
        try (Stream<Path> logs = Files.list(session.logDir())) {
            List<Path> files = logs.filter(Files::isRegularFile).toList();
            assertFalse(files.isEmpty(), "the cluster's logs in " + session.logDir());
            for (Path log : files) {
                assertFalse(Files.readString(log, StandardCharsets.ISO_8859_1).contains(S3TestServer.SECRET_KEY), log + " holds the secret");
            }
        }
    }

    private static String get(HttpClient http, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(session.restAddress().resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), path + ": " + response.body());
        return response.body();
    }

    private static ModelInfo assertDoesNotThrowRead(Path checkpoints) {
        try {
            return ModelInfo.read(checkpoints);
        } catch (Exception e) {
            throw new AssertionError("no model.json in " + checkpoints, e);
        }
    }

    private static String[] job(String command, String topic, String... more) {
        List<String> args = new ArrayList<>(List.of(command, "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                "--dim", "4", "--batch-size", "256", "--checkpoint-interval", "1s", "--parallelism", "2",
                "--jobmanager", session.jobManager()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static void ingest(String topic, int examples, int seed) {
        HonestRunReportIT.Run ingest = cli("ingest", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--partitions", "4",
                "--synthetic", String.valueOf(examples), "--seed", String.valueOf(seed),
                "--truth", dir.resolve(topic + "-" + seed + ".json").toString());
        assertEquals(0, ingest.exitCode(), ingest.err());
    }
}
