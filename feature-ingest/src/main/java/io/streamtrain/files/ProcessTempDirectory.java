package io.streamtrain.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One temporary directory per launcher process, {@code <java.io.tmpdir>/streamtrain-pid-<pid>}, made
 * the process's {@code java.io.tmpdir}: everything Flink, RocksDB and Kafka extract or spill
 * there (the RPC system's 21 MB jar, native libraries, BLOB storage, RocksDB working
 * directories) is deleted with it when the command ends, and a run that was killed before it
 * could delete its own is cleaned up by the next launcher that starts.
 */
public final class ProcessTempDirectory {
    private static final Pattern NAME = Pattern.compile("streamtrain-pid-(\\d+)");

    private ProcessTempDirectory() {}

    /**
     * Creates this process's directory under {@code base} after deleting those of processes that
     * are gone. Must run before anything reads {@code java.io.tmpdir} (first thing in main).
     */
    public static Path install(Path base) throws IOException {
        sweep(base);
        Path dir = Files.createDirectories(base.resolve("streamtrain-pid-" + ProcessHandle.current().pid()));
        System.setProperty("java.io.tmpdir", dir.toString());
        return dir;
    }

    /** Deletes the directories under {@code base} whose process has ended; returns how many. */
    public static int sweep(Path base) throws IOException {
        if (!Files.isDirectory(base)) {
            return 0;
        }
        int deleted = 0;
        try (Stream<Path> entries = Files.list(base)) {
            for (Path dir : (Iterable<Path>) entries::iterator) {
                Optional<Long> pid = ownerOf(dir);
                if (pid.isPresent() && Files.isDirectory(dir) && !alive(pid.get())) {
                    ScratchDirectory.deleteOrWarn(dir);
                    deleted++;
                }
            }
        }
        return deleted;
    }

    static Optional<Long> ownerOf(Path dir) {
        Matcher m = NAME.matcher(dir.getFileName().toString());
        return m.matches() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
