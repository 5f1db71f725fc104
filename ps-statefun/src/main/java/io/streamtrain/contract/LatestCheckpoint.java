package io.streamtrain.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the newest complete checkpoint in a job's checkpoint directory, laid out by Flink as
 * {@code DIR/<job id>/chk-<n>/_metadata}, across all job ids, or a savepoint in it
 * ({@code DIR/savepoint-<id>/_metadata}, as backfill writes): where training resumes
 * ("last-state") and what export reads by default.
 */
public final class LatestCheckpoint {
    private LatestCheckpoint() {}

    public static Optional<Path> find(Path root) {
        return newestFirst(root).stream().findFirst();
    }

    /** Every complete checkpoint and savepoint in the directory, the newest first. */
    public static List<Path> newestFirst(Path root) {
        ModelStorage.refreshCheckpoints(root);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> jobs = Files.list(root)) {
            return jobs.filter(Files::isDirectory)
                    .flatMap(dir -> isSavepoint(dir) ? Stream.of(dir) : completeCheckpoints(dir))
                    .sorted(Comparator.comparingLong(LatestCheckpoint::metadataTime).reversed())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The newest checkpoint or savepoint in the directory older than {@code checkpoint}: what to fall back to when it is damaged. */
    public static Optional<Path> olderThan(Path root, Path checkpoint) {
        long time = metadataTime(checkpoint);
        return newestFirst(root).stream()
                .filter(p -> !p.toAbsolutePath().equals(checkpoint.toAbsolutePath()) && metadataTime(p) <= time)
                .findFirst();
    }

    /** Like {@link #find}, but a missing checkpoint is an error that says what to do. */
    public static Path in(Path root) throws IOException {
        return find(root).orElseThrow(() -> new IOException(
                "no complete checkpoint under " + ModelStorage.location(root) + " (has train run long enough to checkpoint?)"));
    }

    /** A savepoint Flink wrote into the directory (a backfill's output: {@code DIR/savepoint-<id>/_metadata}). */
    private static boolean isSavepoint(Path dir) {
        return dir.getFileName().toString().startsWith("savepoint-") && Files.isRegularFile(dir.resolve("_metadata"));
    }

    private static Stream<Path> completeCheckpoints(Path jobDir) {
        try (Stream<Path> entries = Files.list(jobDir)) {
            return entries.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.isRegularFile(p.resolve("_metadata")))
                    .toList()
                    .stream();
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    private static long metadataTime(Path checkpoint) {
        try {
            return Files.getLastModifiedTime(checkpoint.resolve("_metadata")).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
