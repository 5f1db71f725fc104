package io.streamtrain.train.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.ModelStorage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/**
 * What {@code train --jobmanager} submits as the job's configuration (the session cluster's REST
 * API does not show it back: {@code /jobs/<id>/jobmanager/config} is the cluster's own): the run's
 * settings with checkpoints on S3, without the S3 settings and keys given on its command line.
 */
class SessionJobTest {
    @Test
    void theSubmittedConfigurationHoldsNoFileSystemSettingsAndTheOutputNamesThemWithoutValues() {
        Configuration given = new Configuration();
        given.setString("s3.endpoint", "http://127.0.0.1:9000");
        given.setString("s3.access-key", "streamtrain");
        given.setString("s3.secret-key", "hunter2");
        given.setString("streamtrain.topic", "clicks");
        Configuration conf = TrainingRun.flinkConfiguration(new TrainingRun.Settings(given, ModelStorage.local("s3://models/clicks/checkpoints"),
                2, Duration.ofSeconds(1), Duration.ofSeconds(3), false, System.err));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        Map<String, String> submitted = SessionJob.submitted(conf, FlinkApplication.TRAINING, new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertTrue(submitted.keySet().stream().noneMatch(k -> k.startsWith("s3.")), "no S3 setting is submitted: " + submitted);
        assertFalse(submitted.containsValue("hunter2"), submitted.toString());
        assertEquals("s3://models/clicks/checkpoints", submitted.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY.key()), "the job's own settings are");
        assertEquals("clicks", submitted.get("streamtrain.topic"));
        assertEquals(conf.toMap().size() - 3, submitted.size(), "only the three S3 settings are left out");
        String output = printed.toString(StandardCharsets.UTF_8);
        assertEquals("train: left out of the submitted job's configuration: s3.access-key, s3.endpoint, s3.secret-key (file-system settings"
                + " take effect only when a Flink process starts: the session cluster's own configuration must carry them)", output.strip());
        assertFalse(output.contains("hunter2"), output);
    }
}
