package io.streamtrain.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a model location is named locally and handed back to Flink. */
class ModelStorageTest {
    @Test
    void aRemoteLocationIsNamedByItsMirrorAndGivenToFlinkAsItself() {
        Path mirror = ModelStorage.local("s3://models/clicks/checkpoints");
        assertTrue(mirror.startsWith(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize()), mirror.toString());
        assertTrue(ModelStorage.isRemote(mirror));
        assertEquals(URI.create("s3://models/clicks/checkpoints"), ModelStorage.uri(mirror));
        assertEquals(URI.create("s3://models/clicks/checkpoints/job/chk-3"), ModelStorage.uri(mirror.resolve("job").resolve("chk-3")));
        assertEquals("s3://models/clicks/checkpoints", ModelStorage.location(mirror));
        assertEquals(URI.create("s3://models/"), ModelStorage.uri(ModelStorage.local("s3://models")));
    }

    @Test
    void aLocalPathOrFileUriStaysLocal(@TempDir Path dir) throws Exception {
        assertEquals(dir, ModelStorage.local(dir.toString()));
        assertEquals(dir, ModelStorage.local(dir.toUri().toString()));
        assertFalse(ModelStorage.isRemote(dir));
        assertEquals(dir.toUri(), ModelStorage.uri(dir));
        ModelStorage.refreshCheckpoints(dir); // nothing to do for a local directory
        ModelStorage.write(dir.resolve("a").resolve("model.json"), new byte[] {1, 2});
        assertTrue(ModelStorage.isFile(dir.resolve("a").resolve("model.json")));
        ModelStorage.copy(dir.resolve("a").resolve("model.json"), dir.resolve("b.json"));
        assertEquals(2, Files.size(dir.resolve("b.json")));
    }

    @Test
    void aRemoteLocationNamesItsBucket() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelStorage.local("s3:///key"));
        assertTrue(e.getMessage().contains("s3://BUCKET/KEY"), e.getMessage());
    }
}
