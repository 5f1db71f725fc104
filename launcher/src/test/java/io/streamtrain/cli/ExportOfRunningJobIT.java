package io.streamtrain.cli;

import static io.streamtrain.cli.HonestRunReportIT.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.cluster.JobJarUpload;
import io.streamtrain.cluster.SessionClusterFixture;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.export.RequestedSavepoint;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.TrainingApplication;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.JobMonitor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code export --jobmanager} of a training job that checkpoints every second and keeps training
 * while it is exported: each export reads a savepoint of its own, which the job cannot subsume
 * (its retained checkpoints live about three seconds), so every one succeeds and none is left behind.
 */
@Tag("alone") // a session cluster checkpointing every second beside another test JVM fails over under the load
class ExportOfRunningJobIT {
    private static final int EXPORTS = 4;
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void everyExportOfAJobCheckpointingEverySecondSucceeds(@TempDir Path dir) throws Exception {
        String topic = "export-running-" + System.nanoTime();
        Path checkpoints = dir.resolve("checkpoints");
        ingest(topic, dir, 0);
        Map<String, String> job = Map.of(
                TrainingOptions.BOOTSTRAP.key(), kafka.bootstrapServers(),
                TrainingOptions.TOPIC.key(), topic,
                TrainingOptions.NAME.key(), topic,
                CheckpointingOptions.CHECKPOINTING_INTERVAL.key(), "1 s",
                CheckpointingOptions.CHECKPOINTS_DIRECTORY.key(), checkpoints.toUri().toString());
        try (KafkaProgress progress = new KafkaProgress(kafka.connection())) {
            progress.ensureJobTopics(Configuration.fromMap(job));
        }
        try (SessionClusterFixture session = SessionClusterFixture.start(dir.resolve("cluster"), 1, 2)) {
            JobID id = new JobJarUpload(session.restAddress()).run(SessionClusterFixture.jobJar(), TrainingApplication.class.getName(), job,
                    Optional.empty(), false);
            try (JobMonitor monitor = new JobMonitor(session.restAddress(), id)) {
                long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
                while (LatestCheckpoint.newestFirst(checkpoints).isEmpty()) {
                    assertTrue(System.nanoTime() < deadline, "no checkpoint in " + checkpoints);
                    Thread.sleep(500);
                }
                long rows = 0;
                for (int i = 1; i <= EXPORTS; i++) {
                    ingest(topic, dir, i); // the job keeps training, and checkpointing, while it is exported
                    Path out = dir.resolve("rows-" + i + ".jsonl");
                    HonestRunReportIT.Run export = cli("export", "--checkpoint", checkpoints.toString(), "--jobmanager", session.jobManager(),
                            "--out", out.toString());
                    assertEquals(0, export.exitCode(), "export " + i + ": " + export.out() + export.err());
                    long exported = Files.lines(out).count();
                    assertTrue(exported > 0 && exported >= rows, "export " + i + " has the model's rows: " + exported + " after " + rows);
                    rows = exported;
                    assertEquals(JobStatus.RUNNING, monitor.state().orElseThrow(), "the job keeps running through the export");
                }
                assertTrue(monitor.checkpoints().completed() > EXPORTS, "the job checkpointed while it was exported");
                Path savepoints = checkpoints.resolve(RequestedSavepoint.DIRECTORY);
                assertFalse(Files.exists(savepoints) && Files.list(savepoints).findAny().isPresent(),
                        "each export deleted its savepoint");
                monitor.cancel();
            }
        }
    }

    private void ingest(String topic, Path dir, int seed) {
        HonestRunReportIT.Run ingest = cli("ingest", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--partitions", "2",
                "--synthetic", "3000", "--seed", String.valueOf(seed), "--truth", dir.resolve("truth-" + seed + ".json").toString());
        assertEquals(0, ingest.exitCode(), ingest.err());
    }
}
