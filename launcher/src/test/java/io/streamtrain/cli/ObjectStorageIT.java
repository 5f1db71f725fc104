package io.streamtrain.cli;

import static io.streamtrain.cli.HonestRunReportIT.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.cluster.FileSystemPlugins;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TestExamples;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Models on S3-compatible storage, end to end against a real S3 API server ({@link S3TestServer}):
 * {@code train --checkpoint-dir s3://…} through an injected failure counts every record exactly
 * once; {@code export} and {@code score} read that checkpoint from S3 ({@code score --bundle} a
 * bundle on S3); {@code backfill --from-savepoint s3://…} continues it into a savepoint on S3,
 * which {@code train --from-savepoint s3://…} continues in turn, each exactly once (the count
 * oracle after every step); a wrong secret key is a clear error within seconds.
 */
class ObjectStorageIT {
    private static final String BUCKET = "models";
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void trainExportScoreAndBackfillOnS3(@TempDir Path dir) throws Exception {
        String topic = "s3-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        TestExamples examples = new TestExamples(7);
        try (S3TestServer s3 = S3TestServer.start(dir.resolve("s3"), BUCKET);
                KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            FileSystemPlugins.initialize(s3.configuration()); // as the launcher's main does from the Flink configuration
            examples.produce(producer, topic, 3_000);
            String checkpoints = "s3://" + BUCKET + "/" + topic + "/checkpoints";

            HonestRunReportIT.Run train = cli(job(s3, "train", topic, "--checkpoint-dir", checkpoints, "--inject-failure-after", "1000"));
            assertEquals(0, train.exitCode(), train.out() + train.err());
            Matcher summary = train.summary();
            assertEquals(3_000, Long.parseLong(summary.group(1)), train.out());
            Matcher restarts = Pattern.compile(" restarts=(\\d+) ").matcher(train.out());
            assertTrue(restarts.find() && Long.parseLong(restarts.group(1)) >= 1, "the injected failure restarted the job: " + train.out());
            assertTrue(Files.list(dir.resolve("s3/data").resolve(BUCKET).resolve(topic).resolve("checkpoints")).findAny().isPresent(),
                    "the checkpoints are in the bucket");

            Path local = ModelStorage.local(checkpoints);
            List<ExportedRow> rows = CheckpointRows.readAll(LatestCheckpoint.in(local), ModelInfo.read(local));
            examples.assertCountedExactlyOnce(rows);

            Path jsonl = dir.resolve("rows.jsonl");
            Path bundle = dir.resolve("bundle");
            HonestRunReportIT.Run export = cli("export", "--checkpoint", checkpoints, "--out", jsonl.toString(), "--bundle", bundle.toString());
            assertEquals(0, export.exitCode(), export.out() + export.err());
            assertEquals(rows.size(), Files.readAllLines(jsonl).size(), "export wrote every row of the checkpoint on S3");

            String remoteBundle = "s3://" + BUCKET + "/" + topic + "/bundle";
            upload(bundle, ModelStorage.local(remoteBundle));
            Path input = dir.resolve("input.libffm");
            Files.write(input, scoringLines(rows));
            Path fromCheckpoint = dir.resolve("scores-checkpoint.txt");
            Path fromBundle = dir.resolve("scores-bundle.txt");
            HonestRunReportIT.Run scoreCheckpoint = cli("score", "--checkpoint", checkpoints, "--file", input.toString(), "--format", "libffm",
                    "--out", fromCheckpoint.toString());
            assertEquals(0, scoreCheckpoint.exitCode(), scoreCheckpoint.out() + scoreCheckpoint.err());
            HonestRunReportIT.Run scoreBundle = cli("score", "--bundle", remoteBundle, "--file", input.toString(), "--format", "libffm",
                    "--out", fromBundle.toString());
            assertEquals(0, scoreBundle.exitCode(), scoreBundle.out() + scoreBundle.err());
            assertSameScores(Files.readAllLines(fromCheckpoint), Files.readAllLines(fromBundle));

            // A backfill continues the S3 checkpoint over the whole topic: the records the model has are
            // dropped (its batchers restore their offsets), the new ones trained, exactly once.
            examples.produce(producer, topic, 500);
            String backfillOut = "s3://" + BUCKET + "/" + topic + "/backfill";
            HonestRunReportIT.Run backfill = cli(job(s3, "backfill", topic, "--from-savepoint", checkpoints, "--out-savepoint", backfillOut));
            assertEquals(0, backfill.exitCode(), backfill.out() + backfill.err());
            Path backfilled = ModelStorage.local(backfillOut);
            examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(backfilled), ModelInfo.read(backfilled)));

            // Streaming continues from the backfill's savepoint on S3 where its range ended: only what is new.
            examples.produce(producer, topic, 500);
            String continued = "s3://" + BUCKET + "/" + topic + "/continued";
            HonestRunReportIT.Run resumed = cli(job(s3, "train", topic, "--checkpoint-dir", continued, "--from-savepoint", backfillOut));
            assertEquals(0, resumed.exitCode(), resumed.out() + resumed.err());
            assertEquals(500, Long.parseLong(resumed.summary().group(1)), resumed.out());
            Path continuedDir = ModelStorage.local(continued);
            examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(continuedDir), ModelInfo.read(continuedDir)));

            FileSystemPlugins.initialize(org.apache.flink.configuration.Configuration.fromMap(s3.settings("wrong-secret")));
            long started = System.nanoTime();
            HonestRunReportIT.Run denied = cli("export", "--checkpoint", checkpoints, "--out", dir.resolve("denied.jsonl").toString());
            double seconds = (System.nanoTime() - started) / 1e9;
            assertEquals(1, denied.exitCode(), denied.out() + denied.err());
            assertTrue(denied.err().contains("403") || denied.err().toLowerCase(Locale.ROOT).contains("access denied")
                    || denied.err().contains("SignatureDoesNotMatch"), "the error names the refusal: " + denied.err());
            assertTrue(!denied.err().contains("wrong-secret") && !train.err().contains(S3TestServer.SECRET_KEY), "no secret is printed");
            assertTrue(seconds < 30, "a wrong key fails fast, not after retries: " + seconds + " s");
        } finally {
            FileSystemPlugins.initialize(new org.apache.flink.configuration.Configuration());
        }
    }

    private String[] job(S3TestServer s3, String command, String topic, String... more) {
        List<String> args = new ArrayList<>(List.of(command, "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                "--optimizer", "count", "--batch-size", "64", "--max-wait", "200ms", "--checkpoint-interval", "1s"));
        if (command.equals("train")) {
            args.addAll(List.of("--until-idle", "3s", "--prometheus-port", "off"));
        }
        args.addAll(s3.dynamicProperties());
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /** One line per exported sparse row, its feature alone. */
    private static List<String> scoringLines(List<ExportedRow> rows) {
        return rows.stream().filter(r -> r.field() >= 0 && r.field() < 4).limit(50)
                .map(r -> String.format(Locale.ROOT, "1 %d:%d:1", r.field(), r.id())).toList();
    }

    private static void assertSameScores(List<String> expected, List<String> actual) {
        assertEquals(expected.size(), actual.size());
        assertTrue(!expected.isEmpty());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(Double.parseDouble(expected.get(i)), Double.parseDouble(actual.get(i)), 1e-6, "score " + i);
        }
    }

    /** Copies a local directory tree to a remote location, file by file, through Flink's file system. */
    private static void upload(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                ModelStorage.write(to.resolve(from.relativize(file).toString()), Files.readAllBytes(file));
            }
        }
    }
}
