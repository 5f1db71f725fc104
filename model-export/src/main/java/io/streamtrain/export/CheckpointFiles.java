package io.streamtrain.export;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.AbstractChannelStateHandle;
import org.apache.flink.runtime.state.AbstractMergedChannelStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.OperatorStreamStateHandle;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;

/**
 * Checks a retained checkpoint or savepoint before a job restores it or export reads it: its
 * {@code _metadata} must read, and every local file it names must exist with the size it
 * recorded. A damaged checkpoint otherwise fails deep inside a task's restore, where the file is
 * rarely named, and a job restarts into the same failure again and again.
 */
public final class CheckpointFiles {
    public static final String METADATA = "_metadata";

    private CheckpointFiles() {}

    /** A checkpoint that cannot be restored: {@link #file()} is the part found damaged. */
    public static final class DamagedCheckpointException extends IOException {
        private final Path file;

        DamagedCheckpointException(Path checkpoint, Path file, String what, Throwable cause) {
            super("checkpoint " + checkpoint + " is damaged: " + file + " " + what, cause);
            this.file = file;
        }

        public Path file() {
            return file;
        }
    }

    /** Throws {@link DamagedCheckpointException} naming the first damaged file of {@code checkpoint} (a chk-N or savepoint directory). */
    public static void verify(Path checkpoint) throws IOException {
        Path dir = checkpoint.toAbsolutePath();
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null,
                    Files.exists(dir) ? "is a file, not a checkpoint directory (chk-N or savepoint-…)" : "no such checkpoint directory");
        }
        CheckpointMetadata metadata = metadata(dir);
        for (FileStateHandle file : files(metadata)) {
            if (!"file".equals(file.getFilePath().toUri().getScheme())) {
                continue; // a remote file system: Flink checks it when it reads
            }
            Path path = Path.of(file.getFilePath().toUri());
            if (!Files.isRegularFile(path)) {
                throw new DamagedCheckpointException(dir, path, "is missing (its _metadata names it)", null);
            }
            long size = Files.size(path);
            if (size != file.getStateSize()) {
                throw new DamagedCheckpointException(dir, path,
                        "has " + size + " bytes where its _metadata recorded " + file.getStateSize(), null);
            }
        }
    }

    private static CheckpointMetadata metadata(Path dir) throws IOException {
        Path file = dir.resolve(METADATA);
        if (!Files.isRegularFile(file)) {
            throw new DamagedCheckpointException(dir, file, "is missing", null);
        }
        try (InputStream in = Files.newInputStream(file)) {
            return Checkpoints.loadCheckpointMetadata(new DataInputStream(in), CheckpointFiles.class.getClassLoader(),
                    dir.toUri().toString());
        } catch (IOException | RuntimeException e) {
            throw new DamagedCheckpointException(dir, file, "cannot be read (" + describe(e) + ")", e);
        }
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** Every file the checkpoint's state handles point to (state that small is kept inside _metadata). */
    static List<FileStateHandle> files(CheckpointMetadata metadata) {
        List<FileStateHandle> files = new ArrayList<>();
        for (OperatorState operator : metadata.getOperatorStates()) {
            for (OperatorSubtaskState subtask : operator.getStates()) {
                Stream.of(subtask.getManagedKeyedState(), subtask.getRawKeyedState(), subtask.getManagedOperatorState(),
                                subtask.getRawOperatorState(), subtask.getInputChannelState(), subtask.getResultSubpartitionState())
                        .flatMap(handles -> handles.stream())
                        .forEach(h -> collect(h, files));
            }
        }
        return files;
    }

    private static void collect(StateObject handle, List<FileStateHandle> files) {
        if (handle instanceof FileStateHandle file) {
            files.add(file);
        } else if (handle instanceof KeyGroupsStateHandle keyGroups) {
            collect(keyGroups.getDelegateStateHandle(), files);
        } else if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
            incremental.streamSubHandles().forEach(h -> collect(h, files));
        } else if (handle instanceof OperatorStreamStateHandle operator) {
            collect(operator.getDelegateStateHandle(), files);
        } else if (handle instanceof AbstractChannelStateHandle<?> channel) {
            collect(channel.getDelegate(), files);
        } else if (handle instanceof AbstractMergedChannelStateHandle<?, ?> channels) {
            collect(channels.getDelegate(), files);
        }
        // Anything else is in memory (inside _metadata) or a kind this project does not write.
    }
}
