package io.streamtrain.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ingest.format.FeatureHashing;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.synthetic.Auc;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.JobMonitor;
import io.streamtrain.train.run.LocalFlink;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example scripts of flink-jobs/src/main/sql, as a data engineer runs them: train-ctr.sql
 * trains from Kafka JSON, the checkpoint is exported to a bundle, score-ctr.sql scores candidates
 * with STREAMTRAIN_PREDICT; the scores equal the trainer's own math on the same features and beat
 * chance (for an FM and, with the model switched, a DeepFM); and the same scoring statement posted to Flink's SQL Gateway REST API returns the same
 * scores, while a table with an unknown option is rejected there with the option's name.
 */
class SqlExamplesIT {
    private static final Path SCRIPTS = Path.of("../flink-jobs/src/main/sql");
    private static final int TRAIN = 6_000;
    private static final int CANDIDATES = 400;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void trainScoreAndGatewayFromTheExampleScripts(@TempDir Path dir) throws Exception {
        Run run = trainAndScore(Files.readString(SCRIPTS.resolve("train-ctr.sql")), dir);
        try (Bundle bundle = Bundle.open(dir.resolve("bundle"))) {
            run.assertScoredBy(LoadedModel.of(bundle), 1e-9, "the trainer's math over the bundle");
        }
        try (LocalFlink flink = new LocalFlink(new Configuration(), 1)) {
            checkGateway(flink.restAddress(), run.defines(), run.rows());
        }
    }

    /**
     * The same script with the table's model switched to DeepFM: STREAMTRAIN_PREDICT over its bundle
     * equals the trainer's math over the checkpoint within 1e-5.
     */
    @Test
    void aDeepFmTableScoredInSqlEqualsTheTrainersMathOverTheCheckpoint(@TempDir Path dir) throws Exception {
        String script = Files.readString(SCRIPTS.resolve("train-ctr.sql"));
        String deep = script.replace("'model' = 'fm',", "'model' = 'deepfm', 'fields' = '3', 'hidden' = '32;16',");
        assertTrue(!deep.equals(script), "the script names its model");
        Run run = trainAndScore(deep, dir);
        assertEquals("deepfm", ModelInfo.read(run.checkpoints()).model());
        run.assertScoredBy(LoadedModel.load(run.checkpoints()), 1e-5, "the trainer's math over the checkpoint");
    }

    /** Trains with {@code trainScript} until every click is trained, exports the bundle and scores the candidates with score-ctr.sql. */
    private Run trainAndScore(String trainScript, Path dir) throws Exception {
        String clicks = "sql-ex-clicks-" + System.nanoTime();
        String candidates = "sql-ex-candidates-" + System.nanoTime();
        // The table's name names its internal topics: one of its own per run on the shared broker.
        String model = "ctr_model_" + System.nanoTime();
        kafka.createTopic(clicks, 2);
        kafka.createTopic(candidates, 1);
        Random random = new Random(7);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            produce(producer, clicks, TRAIN, random);
            produce(producer, candidates, CANDIDATES, random);
            producer.flush();
        }
        Path checkpoints = dir.resolve("ckpt");
        Files.createDirectories(checkpoints);
        Map<String, String> defines = Map.of("bootstrap", kafka.bootstrapServers(), "clicks", clicks,
                "candidates", candidates, "checkpoints", checkpoints.toUri().toString(), "bundle", dir.resolve("bundle").toString(),
                SqlScript.KAFKA_PROPERTIES_VARIABLE, SqlScript.tableOptions(kafka.clientProperties()));

        ByteArrayOutputStream scores = new ByteArrayOutputStream();
        try (LocalFlink flink = new LocalFlink(new Configuration(), 2)) {
            PrintStream log = new PrintStream(new ByteArrayOutputStream(), true);
            List<JobClient> training = new SqlSession(new Configuration(), flink.restAddress(), log)
                    .run(SqlScript.statements(trainScript.replace("ctr_model", model), defines));
            assertEquals(1, training.size());
            try (JobMonitor monitor = new JobMonitor(flink.restAddress(), training.get(0).getJobID())) {
                SqlRuns.awaitTrained(kafka, monitor, model, TRAIN, Duration.ofSeconds(120));
            }
            training.get(0).cancel().get();

            BundleWriter.write(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints),
                    ModelCard.FeatureMapping.of(null, ParseOptions.DEFAULT_HASH_BITS), dir.resolve("bundle"), System.err, 1_000_000);
            new SqlSession(new Configuration(), flink.restAddress(), new PrintStream(scores, true))
                    .run(SqlScript.statements(Files.readString(SCRIPTS.resolve("score-ctr.sql")), defines));
        }
        List<String> lines = printedRows(scores);
        assertEquals("user\titem\tdevice\tclicked\tp", lines.get(0));
        List<String> rows = lines.subList(1, lines.size());
        assertEquals(CANDIDATES, rows.size(), "one score per candidate");
        return new Run(checkpoints, defines, rows);
    }

    /** A trained table's checkpoints, the scripts' variables and the rows score-ctr.sql printed. */
    private record Run(Path checkpoints, Map<String, String> defines, List<String> rows) {
        /** Each SQL score equals {@code model}'s on the same features, and the scores rank clicks above non-clicks. */
        void assertScoredBy(LoadedModel model, double tolerance, String what) throws Exception {
            double[] p = new double[rows.size()];
            float[] labels = new float[rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                String[] f = rows.get(i).split("\t");
                double expected = model.predict(keys(f[0], Long.parseLong(f[1]), f[2]), new float[] {1, 1, 1});
                p[i] = Double.parseDouble(f[4]);
                labels[i] = Float.parseFloat(f[3]);
                assertEquals(expected, p[i], tolerance, "row " + rows.get(i) + ": SQL score equals " + what);
            }
            double auc = Auc.of(p, labels);
            System.err.printf("%s: SQL scores' AUC %.4f%n", ModelInfo.read(checkpoints).model(), auc);
            assertTrue(auc > 0.65, "the SQL-trained model ranks clicks above non-clicks: AUC " + auc);
        }
    }

    /** Clicks from a planted user/item effect: users u0..u9 and even items click more. */
    private static void produce(KafkaProducer<byte[], byte[]> producer, String topic, int n, Random random) {
        for (int r = 0; r < n; r++) {
            int u = random.nextInt(40);
            long item = random.nextInt(30);
            String device = random.nextBoolean() ? "ios" : "android";
            double p = 0.1 + (u < 10 ? 0.5 : 0) + (item % 2 == 0 ? 0.3 : 0);
            int clicked = random.nextDouble() < p ? 1 : 0;
            String json = String.format("{\"user\":\"u%d\",\"item\":%d,\"device\":\"%s\",\"clicked\":%d}", u, item, device, clicked);
            producer.send(new ProducerRecord<>(topic, json.getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** Row keys of (user, item, device) as the default column mapping makes them, computed here independently. */
    private static long[] keys(String user, long item, String device) {
        String itemText = Long.toString(item);
        return new long[] {
            FeatureKey.of(0, FeatureHashing.id(0, user, 0, user.length(), ParseOptions.DEFAULT_HASH_BITS)),
            FeatureKey.of(1, FeatureHashing.id(1, itemText, 0, itemText.length(), ParseOptions.DEFAULT_HASH_BITS)),
            FeatureKey.of(2, FeatureHashing.id(2, device, 0, device.length(), ParseOptions.DEFAULT_HASH_BITS)),
        };
    }

    /** What the session printed, without its own progress lines: a query's header and rows. */
    private static List<String> printedRows(ByteArrayOutputStream printed) {
        return printed.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("sql: ")).toList();
    }

    private void checkGateway(URI flink, Map<String, String> defines, List<String> sqlRows) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (Gateway gateway = new Gateway(flink, "127.0.0.1", port, Map.of())) {
            GatewayClient client = new GatewayClient(URI.create("http://127.0.0.1:" + port));
            String session = client.openSession();
            client.execute(session, "CREATE TEMPORARY SYSTEM FUNCTION STREAMTRAIN_PREDICT AS '" + PredictFunction.class.getName() + "'");
            String script = Files.readString(SCRIPTS.resolve("score-ctr.sql"));
            List<String> statements = SqlScript.statements(script, defines);
            client.execute(session, statements.get(0)); // CREATE TABLE candidates
            List<JsonNode> rows = client.execute(session, statements.get(1));
            assertEquals(sqlRows.size(), rows.size(), "the gateway returns every scored candidate");
            List<String> gatewayRows = new ArrayList<>();
            for (JsonNode r : rows) {
                JsonNode f = r.path("fields");
                gatewayRows.add(f.get(0).asText() + "\t" + f.get(1).asLong() + "\t" + f.get(2).asText() + "\t" + f.get(3).asInt() + "\t" + f.get(4).asDouble());
            }
            assertEquals(sorted(sqlRows), sorted(gatewayRows), "gateway scores equal the sql command's");

            client.execute(session, "CREATE TABLE typo (label INT, a STRING) WITH ('connector' = 'streamtrain', 'dimm' = '8')");
            String error = client.executeExpectingError(session, "INSERT INTO typo SELECT 1, 'x'");
            assertTrue(error.contains("dimm"), "the error names the unknown option: " + error);
        }
    }

    private static List<String> sorted(List<String> rows) {
        List<String> copy = new ArrayList<>(rows);
        copy.sort(null);
        return copy;
    }
}
