package io.streamtrain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.TrainingApplication;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.JobMonitor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar deployed as the Kubernetes operator deploys a FlinkSessionJob: uploaded over Flink's
 * REST API ({@code /jars/upload}, then {@code /jars/<id>/run} with the job's settings as Flink
 * configuration) to a standalone session cluster of separate JVMs whose class path holds Flink's
 * own modules only, so that whatever the jar lacks fails the job. It must run and train the whole
 * topic, which a completed checkpoint confirms by committing the source's offsets.
 */
class JobJarSubmissionIT {
    private static final int EXAMPLES = 5_000;
    private static final Duration TIMEOUT = Duration.ofMinutes(4);

    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void theJobJarTrainsOnASessionClusterOfFlinkAlone(@TempDir Path dir) throws Exception {
        String topic = "job-jar-" + UUID.randomUUID();
        SyntheticIngest.ingestSynthetic(IngestSettings.of(kafka.connection(), topic), new PlantedFm(7), EXAMPLES, 7,
                System.currentTimeMillis());
        Map<String, String> job = Map.of(
                TrainingOptions.BOOTSTRAP.key(), kafka.bootstrapServers(),
                TrainingOptions.TOPIC.key(), topic,
                TrainingOptions.NAME.key(), topic,
                CheckpointingOptions.CHECKPOINTING_INTERVAL.key(), "1 s",
                CheckpointingOptions.CHECKPOINTS_DIRECTORY.key(), dir.resolve("checkpoints").toUri().toString());
        try (KafkaProgress progress = new KafkaProgress(kafka.connection())) {
            progress.ensureJobTopics(Configuration.fromMap(job)); // as `train` does before it starts a job
        }

        try (SessionClusterFixture session = SessionClusterFixture.start(dir.resolve("cluster"), 1, 2)) {
            JobID id = new JobJarUpload(session.restAddress()).run(SessionClusterFixture.jobJar(), TrainingApplication.class.getName(), job,
                    Optional.empty(), false);
            try (JobMonitor monitor = new JobMonitor(session.restAddress(), id)) {
                await("the job running", () -> monitor.state().orElse(JobStatus.INITIALIZING) == JobStatus.RUNNING && monitor.allTasksRunning());
                try (KafkaProgress progress = new KafkaProgress(kafka.connection())) {
                    Map<TopicPartition, Long> end = progress.endOffsets(topic);
                    assertEquals(EXAMPLES, end.values().stream().mapToLong(Long::longValue).sum());
                    await("a checkpoint that committed the whole topic", () -> {
                        assertEquals(JobStatus.RUNNING, monitor.state().orElseThrow(), () -> rootException(monitor));
                        // A partition the sticky partitioner left empty has no commit: it counts from its start.
                        return KafkaProgress.lag(end, progress.committed(TrainingOptions.examplesGroup(Configuration.fromMap(job)), topic),
                                progress.startOffsets(topic)) == 0;
                    });
                }
                assertTrue(monitor.checkpoints().completed() >= 1);
                // The job itself recorded what export needs beside its checkpoints.
                assertEquals(topic, ModelInfo.read(dir.resolve("checkpoints")).topic());
                monitor.cancel();
            }
        }
    }

    private static String rootException(JobMonitor monitor) {
        try {
            return monitor.rootException();
        } catch (Exception e) {
            return "(no root exception: " + e + ")";
        }
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.call()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(500);
        }
    }
}
