package io.streamtrain.files;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ScratchDirectoryTest {
    @Test
    void closingDeletesTheDirectoryAndEverythingInIt() throws Exception {
        Path dir;
        try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-scratch-test")) {
            dir = scratch.path();
            Files.createDirectories(dir.resolve("kafka/topic-0"));
            Files.writeString(dir.resolve("kafka/topic-0/00000.log"), "records");
            assertTrue(Files.isDirectory(dir));
        }
        assertFalse(Files.exists(dir), dir + " is gone");
    }

    @Test
    void deletingAMissingDirectoryIsNoError() throws Exception {
        ScratchDirectory.deleteRecursively(Path.of("/nonexistent/streamtrain-" + System.nanoTime()));
    }
}
