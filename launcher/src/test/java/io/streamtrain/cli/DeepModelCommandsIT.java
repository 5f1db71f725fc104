package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ingest.synthetic.Auc;
import io.streamtrain.testdata.SharedData;
import io.streamtrain.testing.KafkaFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DeepFM model through the command line as a user runs it on a real click log: the Criteo sample
 * ingested with {@code ingest --format criteo}, {@code train --model deepfm} with its defaults (39
 * fields, MLP 256-128-64), {@code export} to rows and a bundle, then the held-out rows scored three
 * ways that must agree within 1e-5: {@code score --checkpoint} (the trainer's math over the
 * checkpoint), {@code score --bundle} (the DJL network over the bundle) and {@code serve}'s
 * {@code POST /score} (a separate process over the bundle).
 */
class DeepModelCommandsIT {
    private static final int TRAIN_ROWS = 1600;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void trainExportScoreAndServeDeepFmOnCriteo(@TempDir Path dir) throws Exception {
        Path sample = SharedData.file(SharedData.CRITEO_SAMPLE);
        Assumptions.assumeTrue(Files.isRegularFile(sample), "the Criteo sample is not at " + sample.toAbsolutePath());
        List<String> lines = Files.readAllLines(sample);
        Path trainFile = Files.write(dir.resolve("train.tsv"), lines.subList(0, TRAIN_ROWS));
        List<String> heldOut = lines.subList(TRAIN_ROWS, lines.size());
        Path testFile = Files.write(dir.resolve("test.tsv"), heldOut);

        String topic = "deep-cli-" + System.nanoTime();
        CliRun ingest = CliRun.of("ingest", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--format", "criteo",
                "--file", trainFile.toString());
        assertEquals(0, ingest.exitCode(), ingest.err());

        Path checkpoints = dir.resolve("ckpt");
        CliRun train = CliRun.of("train", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                "--model", "deepfm", "--checkpoint-dir", checkpoints.toString(), "--checkpoint-interval", "1s",
                "--until-idle", "5s", "--prometheus-port", "off");
        assertEquals(0, train.exitCode(), train.err());
        ModelInfo info = ModelInfo.read(checkpoints);
        assertEquals("deepfm", info.model(), "model.json names the model");

        Path rows = dir.resolve("rows.jsonl");
        Path bundle = dir.resolve("bundle");
        CliRun export = CliRun.of("export", "--checkpoint", checkpoints.toString(), "--out", rows.toString(),
                "--bundle", bundle.toString(), "--format", "criteo");
        assertEquals(0, export.exitCode(), export.err());
        assertDenseBlocks(rows, info);

        Path byCheckpoint = dir.resolve("p-checkpoint.txt");
        CliRun scoreCheckpoint = CliRun.of("score", "--checkpoint", checkpoints.toString(), "--file", testFile.toString(),
                "--format", "criteo", "--out", byCheckpoint.toString());
        assertEquals(0, scoreCheckpoint.exitCode(), scoreCheckpoint.err());
        Path byBundle = dir.resolve("p-bundle.txt");
        CliRun scoreBundle = CliRun.of("score", "--bundle", bundle.toString(), "--file", testFile.toString(),
                "--out", byBundle.toString());
        assertEquals(0, scoreBundle.exitCode(), scoreBundle.err());

        double[] trainer = probabilities(byCheckpoint);
        double[] djl = probabilities(byBundle);
        assertEquals(heldOut.size(), trainer.length, "one probability per held-out line");
        assertEquals(heldOut.size(), djl.length, "one probability per held-out line");
        for (int i = 0; i < trainer.length; i++) {
            assertEquals(trainer[i], djl[i], 1e-5, "held-out line " + (i + 1) + ": DJL over the bundle equals the trainer's math");
        }
        double[] served = serve(bundle, dir.resolve("serve.log"), heldOut);
        for (int i = 0; i < trainer.length; i++) {
            assertEquals(trainer[i], served[i], 1e-5, "held-out line " + (i + 1) + ": serve equals the trainer's math");
        }

        float[] labels = new float[heldOut.size()];
        for (int i = 0; i < labels.length; i++) {
            labels[i] = Float.parseFloat(heldOut.get(i).substring(0, heldOut.get(i).indexOf('\t')));
        }
        double auc = Auc.of(trainer, labels);
        System.err.printf("deepfm on %d Criteo rows, defaults: held-out AUC %.4f over %d rows%n", TRAIN_ROWS, auc, labels.length);
        assertTrue(auc > 0.6, "the deep model learned from the real log with its defaults: held-out AUC " + auc);
    }

    /** Every dense block of the model's layout is one {dense, count, values} line, trained by every example. */
    private static void assertDenseBlocks(Path rows, ModelInfo info) throws Exception {
        List<JsonNode> dense = Files.readAllLines(rows).stream().map(DeepModelCommandsIT::json).filter(n -> n.has("dense")).toList();
        Set<String> expected = info.shape().denseLayout().blocks().stream().map(b -> b.name()).collect(Collectors.toSet());
        assertEquals(expected, dense.stream().map(n -> n.get("dense").asText()).collect(Collectors.toSet()), "one line per dense block");
        for (JsonNode block : dense) {
            assertEquals(Set.of("dense", "count", "values"), fieldNames(block), block.get("dense").asText());
            assertEquals(TRAIN_ROWS, block.get("count").asLong(), block.get("dense").asText() + " trained by every example");
            int size = info.shape().denseLayout().blocks().stream().filter(b -> b.name().equals(block.get("dense").asText()))
                    .findFirst().orElseThrow().size();
            assertEquals(size, block.get("values").size(), block.get("dense").asText() + " values");
        }
    }

    /** Starts {@code serve --bundle} as its own process, scores {@code lines} in one request and stops it with SIGTERM. */
    private static double[] serve(Path bundle, Path log, List<String> lines) throws Exception {
        Process serve = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StreamtrainCli.class.getName(),
                "serve", "--bundle", bundle.toString(), "--port", "0")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int port = port(serve, log);
            ObjectNode request = JSON.createObjectNode();
            ArrayNode examples = request.putArray("examples");
            lines.forEach(l -> examples.addObject().put("line", l));
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/score"))
                            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request))).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertEquals(200, response.statusCode(), response.body());
            JsonNode scores = JSON.readTree(response.body()).get("scores");
            double[] p = new double[scores.size()];
            for (int i = 0; i < p.length; i++) {
                p[i] = scores.get(i).asDouble();
            }
            assertEquals(lines.size(), p.length, "one score per example");
            serve.destroy();
            assertTrue(serve.waitFor(60, TimeUnit.SECONDS), "serve stops on SIGTERM");
            assertEquals(0, serve.exitValue(), Files.readString(log));
            return p;
        } finally {
            serve.destroyForcibly();
        }
    }

    private static int port(Process serve, Path log) throws Exception {
        Pattern listening = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline && serve.isAlive()) {
            Matcher m = listening.matcher(Files.readString(log));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            Thread.sleep(50);
        }
        throw new AssertionError("serve did not start listening:\n" + Files.readString(log));
    }

    private static double[] probabilities(Path file) throws Exception {
        return Files.readAllLines(file).stream().mapToDouble(Double::parseDouble).toArray();
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new java.util.HashSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
