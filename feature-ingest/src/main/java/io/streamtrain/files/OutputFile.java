package io.streamtrain.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a command's output file or directory under a temporary name beside it and renames it
 * into place only once it is complete, so a command that fails (or is killed) leaves no partial
 * output that a later step could take for a whole one.
 */
public final class OutputFile {
    private OutputFile() {}

    /** Writes the content of a file or directory at the path it is given. */
    @FunctionalInterface
    public interface Writing<T> {
        T to(Path temporary) throws Exception;
    }

    /**
     * Has {@code writing} write to a temporary path in {@code target}'s directory, then renames
     * that onto {@code target} (replacing a file, or an empty directory); on failure the
     * temporary path is deleted and {@code target} is left as it was.
     */
    public static <T> T write(Path target, Writing<T> writing) throws Exception {
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        Files.createDirectories(dir);
        // Hidden and named after its target, so one left by a killed run says what it was.
        Path temporary = dir.resolve("." + absolute.getFileName() + ".partial-" + ProcessHandle.current().pid());
        ScratchDirectory.deleteRecursively(temporary);
        try {
            T result = writing.to(temporary);
            Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return result;
        } finally {
            ScratchDirectory.deleteOrWarn(temporary);
        }
    }
}
