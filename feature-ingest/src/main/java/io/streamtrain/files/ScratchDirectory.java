package io.streamtrain.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A temporary directory that is deleted, with everything in it, when closed: benchmarks write
 * gigabytes of Kafka logs and checkpoints into theirs, which must not outlive the run.
 */
public final class ScratchDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ScratchDirectory.class);

    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    /** A new empty directory in the system's temporary directory, its name starting with {@code prefix}. */
    public static ScratchDirectory create(String prefix) throws IOException {
        return new ScratchDirectory(Files.createTempDirectory(prefix));
    }

    public Path path() {
        return path;
    }

    /** Deletes the directory; a failure is logged, not thrown, so that it never hides the run's own outcome. */
    @Override
    public void close() {
        deleteOrWarn(path);
    }

    /** {@link #deleteRecursively}, with a failure logged, not thrown. */
    public static void deleteOrWarn(Path dir) {
        try {
            deleteRecursively(dir);
        } catch (IOException e) {
            LOG.warn("could not delete {}: {}", dir, e.toString());
        }
    }

    /** Deletes {@code dir} and everything under it; nothing if it does not exist. */
    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(dir)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path p : paths) {
            Files.deleteIfExists(p);
        }
    }
}
