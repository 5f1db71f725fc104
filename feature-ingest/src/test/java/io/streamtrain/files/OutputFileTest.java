package io.streamtrain.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputFileTest {
    @TempDir
    Path dir;

    @Test
    void aCompleteFileReplacesTheTarget() throws Exception {
        Path target = dir.resolve("out.txt");
        Files.writeString(target, "old");
        int n = OutputFile.write(target, partial -> {
            Files.writeString(partial, "new");
            assertFalse(Files.readString(target).equals("new"), "the target changes only when complete");
            return 3;
        });
        assertEquals(3, n);
        assertEquals("new", Files.readString(target));
        assertEquals(List.of(target), list(dir));
    }

    @Test
    void aFailedWriteLeavesNeitherAFileNorItsPartialCopy() throws Exception {
        Path target = dir.resolve("sub/out.txt");
        IOException e = assertThrows(IOException.class, () -> OutputFile.write(target, partial -> {
            Files.writeString(partial, "half");
            throw new IOException("disk full");
        }));
        assertEquals("disk full", e.getMessage());
        assertFalse(Files.exists(target));
        assertEquals(List.of(), list(dir.resolve("sub")));
    }

    @Test
    void aDirectoryIsWrittenWholeIntoAnEmptyOne() throws Exception {
        Path target = Files.createDirectory(dir.resolve("bundle"));
        OutputFile.write(target, partial -> {
            Files.createDirectories(partial);
            return Files.writeString(partial.resolve("card.json"), "{}");
        });
        assertEquals("{}", Files.readString(target.resolve("card.json")));
        assertEquals(List.of(target), list(dir));
    }

    private static List<Path> list(Path d) throws IOException {
        try (Stream<Path> files = Files.list(d)) {
            return files.toList();
        }
    }
}
