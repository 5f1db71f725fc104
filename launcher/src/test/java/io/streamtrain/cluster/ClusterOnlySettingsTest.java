package io.streamtrain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A job submitted to a session cluster gets its settings less the file systems' (and their keys), which are named. */
class ClusterOnlySettingsTest {
    @Test
    void fileSystemSettingsAndKeysAreLeftOutAndNamedWithoutTheirValues() {
        ClusterOnlySettings.Split split = ClusterOnlySettings.split(Map.of(
                "s3.secret-key", "hunter2", "s3.access-key", "AKIA", "fs.s3a.endpoint", "http://s3", "s3a.path.style.access", "true",
                "presto.s3.credentials-provider", "x", "gs.auth.service.account.json.keyfile", "/k",
                "execution.checkpointing.dir", "s3://b/c", "streamtrain.topic", "t", "parallelism.default", "2"));
        assertEquals(Map.of("execution.checkpointing.dir", "s3://b/c", "streamtrain.topic", "t", "parallelism.default", "2"), split.submitted(),
                "the job's own settings, checkpoints on S3 among them, are submitted");
        assertEquals(List.of("fs.s3a.endpoint", "gs.auth.service.account.json.keyfile", "presto.s3.credentials-provider", "s3.access-key",
                "s3.secret-key", "s3a.path.style.access"), List.copyOf(split.leftOut()));
        String notice = split.notice("train");
        assertEquals("train: left out of the submitted job's configuration: fs.s3a.endpoint, gs.auth.service.account.json.keyfile,"
                + " presto.s3.credentials-provider, s3.access-key, s3.secret-key, s3a.path.style.access (file-system settings take"
                + " effect only when a Flink process starts: the session cluster's own configuration must carry them)", notice);
        assertFalse(notice.contains("hunter2") || notice.contains("AKIA"), notice);
    }

    @Test
    void nothingLeftOutNothingSaid() {
        ClusterOnlySettings.Split split = ClusterOnlySettings.split(Map.of("streamtrain.topic", "t"));
        assertEquals(Map.of("streamtrain.topic", "t"), split.submitted());
        assertNull(split.notice("join"));
    }
}
