package io.streamtrain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.TrainingApplication;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.JobMonitor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
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
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaFixture kafka = KafkaFixture.shared();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theJobJarTrainsOnASessionClusterOfFlinkAlone(@TempDir Path dir) throws Exception {
        Path jar = JobJars.jobJar();
        String flinkOnly = JobJars.flinkOnlyClassPath();
        assertFalse(flinkOnly.contains("flink-connector-kafka") || flinkOnly.contains("kafka-clients") || flinkOnly.contains("flink-jobs"),
                "the cluster's class path must not have what the job jar brings: " + flinkOnly);

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

        LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), 0, 2, MemorySize.parse("1g"), new Configuration());
        try {
            Files.writeString(cluster.layout().classPathFile(), flinkOnly);
            cluster.startSession();
            cluster.addTaskManager();
            URI rest = cluster.restAddress();
            await("a TaskManager registered with the session cluster", () -> slots(rest) >= 2);

            try (JobMonitor monitor = new JobMonitor(rest, run(rest, upload(rest, jar), job))) {
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
                monitor.cancel();
            }
        } finally {
            cluster.stop(Duration.ofSeconds(30));
        }
    }

    /** {@code POST /jars/upload}: the jar as multipart form data; returns the jar's id on the cluster. */
    private String upload(URI rest, Path jar) throws Exception {
        String boundary = "streamtrain-" + UUID.randomUUID();
        String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"" + jar.getFileName()
                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
        HttpRequest request = HttpRequest.newBuilder(rest.resolve("/jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.concat(HttpRequest.BodyPublishers.ofString(head),
                        HttpRequest.BodyPublishers.ofFile(jar), HttpRequest.BodyPublishers.ofString("\r\n--" + boundary + "--\r\n")))
                .build();
        JsonNode response = send(request);
        assertEquals("success", response.path("status").asText(), response.toString());
        return Path.of(response.path("filename").asText()).getFileName().toString();
    }

    /** {@code POST /jars/<id>/run} with the job's settings as Flink configuration, as a FlinkSessionJob's flinkConfiguration. */
    private JobID run(URI rest, String jarId, Map<String, String> job) throws Exception {
        String body = JSON.writeValueAsString(Map.of(
                "entryClass", TrainingApplication.class.getName(),
                "parallelism", 1,
                "flinkConfiguration", job));
        HttpRequest request = HttpRequest.newBuilder(rest.resolve("/jars/" + jarId + "/run"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .timeout(TIMEOUT)
                .build();
        return JobID.fromHexString(send(request).path("jobid").asText());
    }

    private JsonNode send(HttpRequest request) throws Exception {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), request.uri() + ": " + response.body());
        return JSON.readTree(response.body());
    }

    /** The session cluster's task slots; 0 while its REST endpoint is not up yet. */
    private static int slots(URI rest) throws Exception {
        try {
            return JobMonitor.clusterOverview(rest).getNumSlotsTotal();
        } catch (IOException e) {
            return 0;
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
