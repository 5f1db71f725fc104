package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TestExamples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop through the command line against the secured broker, as a user runs it with the files
 * {@code streamtrain kafka --secure} writes: ingest and train (with an injected failure) with
 * {@code --kafka-properties client.properties}, the count oracle exact on the exported rows, the
 * report over mTLS with {@code client-mtls.properties}; and without the right credentials each
 * command fails within seconds, naming the problem, never printing the password.
 */
class SecuredCommandsIT {
    private final KafkaFixture kafka = KafkaFixture.secured();
    private final LocalKafka broker = kafka.secureBroker();
    private final Path sasl = broker.securityDir().resolve("client.properties");

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void ingestTrainAndReportWithTheWrittenClientProperties(@TempDir Path dir) throws Exception {
        String topic = "secured-cli-" + System.nanoTime();
        try (CapturedLogs logs = new CapturedLogs()) {
            loop(topic, dir);
            assertTrue(logs.text().contains("sasl.jaas.config = [hidden]"), "the Kafka clients logged their configuration");
            assertFalse(logs.text().contains(password()), "the password is in no log line");
        }
    }

    private void loop(String topic, Path dir) throws Exception {
        CliRun ingest = CliRun.of("ingest", "--bootstrap", broker.bootstrapServers(), "--kafka-properties", sasl.toString(),
                "--topic", topic, "--synthetic", "3000", "--seed", "5", "--truth", dir.resolve("truth.json").toString());
        assertEquals(0, ingest.exitCode(), ingest.err());

        Path checkpoints = dir.resolve("ckpt");
        CliRun train = CliRun.of("train", "--bootstrap", broker.bootstrapServers(), "--kafka-properties", sasl.toString(),
                "--topic", topic, "--name", topic, "--model", "lr", "--dim", "1", "--optimizer", "count", "--batch-size", "64",
                "--parallelism", "2", "--inject-failure-after", "700", "--checkpoint-dir", checkpoints.toString(),
                "--checkpoint-interval", "500ms", "--until-idle", "8s", "--prometheus-port", "off");
        assertEquals(0, train.exitCode(), train.err());
        assertFalse(train.err().contains(password()), "the password is never printed");

        Truth truth = truth(topic);
        TestExamples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints)),
                truth.records, truth.counts);

        Path html = dir.resolve("report.html");
        CliRun report = CliRun.of("report", "--bootstrap", broker.mtlsBootstrapServers(), "--kafka-properties",
                broker.securityDir().resolve("client-mtls.properties").toString(), "--metrics-topic", topic + ".metrics",
                "--out", html.toString());
        assertEquals(0, report.exitCode(), report.err());
        assertTrue(Files.size(html) > 0);
    }

    /** Each command that talks to Kafka, but for --bootstrap and --kafka-properties. */
    private static List<String[]> everyCommand(Path dir) {
        return List.of(
                new String[] {"ingest", "--topic", "never", "--synthetic", "10", "--truth", dir.resolve("t.json").toString()},
                new String[] {"train", "--topic", "never", "--until-idle", "5s", "--prometheus-port", "off",
                    "--checkpoint-dir", dir.resolve("ckpt").toString()},
                new String[] {"backfill", "--topic", "never", "--from-offsets", "0:0", "--to-offsets", "0:10",
                    "--out-savepoint", dir.resolve("sp").toString()},
                new String[] {"join", "--impressions", "never-i", "--clicks", "never-c", "--out", "never-o", "--until-end",
                    "--checkpoint-dir", dir.resolve("join").toString()},
                new String[] {"report", "--metrics-topic", "never.metrics", "--out", dir.resolve("r.html").toString()},
                new String[] {"dashboard", "--metrics-topic", "never.metrics", "--port", "0"});
    }

    @Test
    void aWrongPasswordEndsEachCommandWithinSecondsNamingTheAuthentication(@TempDir Path dir) throws Exception {
        Path wrong = Files.writeString(dir.resolve("wrong.properties"),
                Files.readString(sasl).replace(password(), "not-the-password"));
        for (String[] args : everyCommand(dir)) {
            CliRun run = CliRun.of(concat(args, "--bootstrap", broker.bootstrapServers(), "--kafka-properties", wrong.toString()));
            assertFailedFast(args[0], run, "authentication failed (SaslAuthenticationException)");
            assertFalse(run.err().contains("not-the-password"), run.err());
        }
    }

    /** Kafka only disconnects a plaintext client from a TLS listener; each command names the mismatch instead of timing out. */
    @Test
    void withoutClientPropertiesEachCommandEndsWithinSecondsNamingTheSecurityProtocol(@TempDir Path dir) {
        for (String[] args : everyCommand(dir)) {
            CliRun run = CliRun.of(concat(args, "--bootstrap", broker.bootstrapServers()));
            assertFailedFast(args[0], run, "security.protocol is PLAINTEXT");
        }
    }

    private static void assertFailedFast(String command, CliRun run, String named) {
        assertEquals(1, run.exitCode(), command + ": " + run.err());
        assertTrue(run.err().contains(named), command + ": " + run.err());
        assertTrue(run.seconds() < 10, command + " took " + run.seconds() + " s: " + run.err());
    }

    private String password() {
        String jaas = broker.connection().clientProperties().get("sasl.jaas.config");
        int start = jaas.indexOf("password=\"") + "password=\"".length();
        return jaas.substring(start, jaas.indexOf('"', start));
    }

    private record Truth(long records, Map<Long, Long> counts) {}

    /** The oracle's truth from what the topic holds: every record once, every feature once per record containing it. */
    private Truth truth(String topic) throws IOException {
        AvroCodec<Example> codec = AvroCodec.of(Example.class);
        Map<Long, Long> counts = new HashMap<>();
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(topic, true, Duration.ofSeconds(60));
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Set<Long> distinct = new HashSet<>();
            for (Feature f : codec.decode(r.value()).getFeatures()) {
                distinct.add(FeatureKey.of(f.getField(), f.getId()));
            }
            distinct.forEach(k -> counts.merge(k, 1L, Long::sum));
        }
        return new Truth(records.size(), counts);
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
