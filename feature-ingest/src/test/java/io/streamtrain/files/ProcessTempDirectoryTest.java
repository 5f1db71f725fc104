package io.streamtrain.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessTempDirectoryTest {
    @TempDir
    Path base;

    @Test
    void sweepDeletesTheDirectoriesOfEndedProcessesOnly() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        Path killedRun = Files.createDirectories(base.resolve("streamtrain-pid-" + ended.pid()));
        Files.write(killedRun.resolve("flink-rpc-akka_1.jar"), new byte[1024]);
        Path live = Files.createDirectories(base.resolve("streamtrain-pid-" + ProcessHandle.current().pid()));
        Path other = Files.createDirectories(base.resolve("streamtrain-bench123"));

        assertEquals(1, ProcessTempDirectory.sweep(base));

        assertFalse(Files.exists(killedRun));
        assertTrue(Files.isDirectory(live));
        assertTrue(Files.isDirectory(other));
    }

    @Test
    void installMakesThisProcesssDirectoryTheTemporaryDirectory() throws Exception {
        String before = System.getProperty("java.io.tmpdir");
        try {
            Path dir = ProcessTempDirectory.install(base);
            assertEquals(base.resolve("streamtrain-pid-" + ProcessHandle.current().pid()), dir);
            assertEquals(dir.toString(), System.getProperty("java.io.tmpdir"));
            assertTrue(Files.isDirectory(dir));
        } finally {
            System.setProperty("java.io.tmpdir", before);
        }
    }
}
