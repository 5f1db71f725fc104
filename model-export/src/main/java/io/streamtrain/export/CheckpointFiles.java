package io.streamtrain.export;

import io.streamtrain.contract.ModelStorage;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import org.apache.flink.runtime.state.OperatorBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;

/**
 * Checks a retained checkpoint or savepoint before a job restores it or export reads it, so that a
 * damaged one fails within seconds naming the damaged file instead of deep inside a task's restore
 * (where the file is rarely named) with the job restarting into the same failure again and again.
 *
 * <p>What it reads: the {@code _metadata}; the size of every local file it names; every RocksDB SST
 * file whole, against the block checksums RocksDB keeps in it ({@link SstChecksums}); and the header
 * of every other state file (the state's names and serializers, which must deserialize). On a big
 * checkpoint the SST files dominate: one sequential read of the whole keyed state, about what a
 * restore copies anyway. Files on a remote file system are left to Flink, which checks them as it
 * reads them; of a checkpoint on remote storage ({@link ModelStorage}) only the {@code _metadata} and
 * the state headers are read here.
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

    /** What a piece of state holds, which decides how its contents are checked. */
    enum Kind {
        /** A RocksDB table file: every block carries a checksum. */
        SST,
        /** Starts with a keyed backend's state names and serializers. */
        KEYED,
        /** Starts with an operator backend's state names and serializers. */
        OPERATOR,
        /** Raw keyed state: the timers a heap timer service wrote for each key group ({@link TimerSnapshots}). */
        TIMERS,
        /** A RocksDB MANIFEST, OPTIONS or CURRENT file, raw operator or channel state: only its size is checked. */
        OTHER
    }

    /** One piece of state the checkpoint's _metadata points to; {@code offsets}: where each key group starts (timers only). */
    record Part(StreamStateHandle handle, Kind kind, long[] offsets) {
        Part(StreamStateHandle handle, Kind kind) {
            this(handle, kind, new long[0]);
        }
    }

    /** Throws {@link DamagedCheckpointException} naming the first damaged file of {@code checkpoint} (a chk-N or savepoint directory). */
    public static void verify(Path checkpoint) throws IOException {
        Path dir = checkpoint.toAbsolutePath();
        if (!ModelStorage.isRemote(dir) && !Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null,
                    Files.exists(dir) ? "is a file, not a checkpoint directory (chk-N or savepoint-…)" : "no such checkpoint directory");
        }
        List<Part> parts = parts(metadata(dir));
        for (Part part : parts) { // the cheap checks first
            Path path = localPath(part.handle());
            if (path == null) {
                continue;
            }
            if (!Files.isRegularFile(path)) {
                throw new DamagedCheckpointException(dir, path, "is missing (its _metadata names it)", null);
            }
            long size = Files.size(path);
            if (size != part.handle().getStateSize()) {
                throw new DamagedCheckpointException(dir, path,
                        "has " + size + " bytes where its _metadata recorded " + part.handle().getStateSize(), null);
            }
        }
        for (Part part : parts) {
            verifyContents(dir, part);
        }
    }

    private static void verifyContents(Path dir, Part part) throws IOException {
        StreamStateHandle handle = part.handle();
        Path path = localPath(handle);
        boolean inline = handle instanceof ByteStreamStateHandle;
        if (path == null && !inline) {
            return; // remote
        }
        Path named = path != null ? path : dir.resolve(METADATA);
        String where = path != null ? "" : " (in the " + part.kind().name().toLowerCase(Locale.ROOT) + " state it holds inline)";
        switch (part.kind()) {
            case SST -> {
                String mismatch = path != null ? SstChecksums.mismatch(path) : inlineSstMismatch((ByteStreamStateHandle) handle);
                if (mismatch != null) {
                    throw new DamagedCheckpointException(dir, named, "fails its RocksDB checksums" + where + " (" + mismatch + ")", null);
                }
            }
            case KEYED, OPERATOR, TIMERS -> {
                try (FSDataInputStream in = handle.openInputStream()) {
                    DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(in);
                    ClassLoader classes = CheckpointFiles.class.getClassLoader();
                    if (part.kind() == Kind.KEYED) {
                        new KeyedBackendSerializationProxy<>(classes).read(view);
                    } else if (part.kind() == Kind.OPERATOR) {
                        new OperatorBackendSerializationProxy(classes).read(view);
                    } else {
                        for (long offset : part.offsets()) {
                            in.seek(offset);
                            new TimerSnapshots(classes).read((InputStream) in);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    throw new DamagedCheckpointException(dir, named, "cannot be read" + where + " (" + describe(e) + ")", e);
                }
            }
            case OTHER -> {}
        }
    }

    /** SST files below Flink's inline threshold live inside _metadata; RocksDB checks only files. */
    private static String inlineSstMismatch(ByteStreamStateHandle handle) throws IOException {
        Path tmp = Files.createTempFile("streamtrain-verify-", ".sst");
        try {
            Files.write(tmp, handle.getData());
            return SstChecksums.mismatch(tmp);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The local file behind {@code handle}, or null when it is inline in _metadata or on a remote file system. */
    static Path localPath(StreamStateHandle handle) {
        if (handle instanceof FileStateHandle file && "file".equals(file.getFilePath().toUri().getScheme())) {
            return Path.of(file.getFilePath().toUri());
        }
        return null;
    }

    static CheckpointMetadata metadata(Path dir) throws IOException {
        Path file = dir.resolve(METADATA);
        if (!ModelStorage.isFile(file)) {
            throw new DamagedCheckpointException(dir, file, "is missing", null);
        }
        try (InputStream in = ModelStorage.open(file)) {
            return Checkpoints.loadCheckpointMetadata(new DataInputStream(in), CheckpointFiles.class.getClassLoader(),
                    ModelStorage.uri(dir).toString());
        } catch (IOException | RuntimeException e) {
            throw new DamagedCheckpointException(dir, file, "cannot be read (" + describe(e) + ")", e);
        }
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** Every piece of state the checkpoint's state handles point to, in files or inline in _metadata. */
    static List<Part> parts(CheckpointMetadata metadata) {
        List<Part> parts = new ArrayList<>();
        for (OperatorState operator : metadata.getOperatorStates()) {
            for (OperatorSubtaskState subtask : operator.getStates()) {
                subtask.getManagedKeyedState().forEach(h -> collect(h, Kind.KEYED, parts));
                subtask.getRawKeyedState().forEach(h -> collect(h, Kind.TIMERS, parts));
                subtask.getManagedOperatorState().forEach(h -> collect(h, Kind.OPERATOR, parts));
                Stream.of(subtask.getRawOperatorState(), subtask.getInputChannelState(), subtask.getResultSubpartitionState())
                        .flatMap(handles -> handles.stream())
                        .forEach(h -> collect(h, Kind.OTHER, parts));
            }
        }
        return parts;
    }

    /** {@code kind}: what the state's own format is, by where the subtask keeps it. */
    private static void collect(StateObject handle, Kind kind, List<Part> parts) {
        if (handle instanceof KeyGroupsStateHandle keyGroups) {
            List<Long> offsets = new ArrayList<>();
            keyGroups.getGroupRangeOffsets().forEach(group -> offsets.add(group.f1));
            parts.add(new Part(keyGroups.getDelegateStateHandle(), kind, offsets.stream().mapToLong(Long::longValue).toArray()));
        } else if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
            parts.add(new Part(incremental.getMetaDataStateHandle(), Kind.KEYED));
            Stream.concat(incremental.getSharedState().stream(), incremental.getPrivateState().stream())
                    .forEach(file -> parts.add(new Part(file.getHandle(), file.getLocalPath().endsWith(".sst") ? Kind.SST : Kind.OTHER)));
        } else if (handle instanceof OperatorStreamStateHandle operator) {
            parts.add(new Part(operator.getDelegateStateHandle(), kind));
        } else if (handle instanceof AbstractChannelStateHandle<?> channel) {
            parts.add(new Part(channel.getDelegate(), Kind.OTHER));
        } else if (handle instanceof AbstractMergedChannelStateHandle<?, ?> channels) {
            parts.add(new Part(channels.getDelegate(), Kind.OTHER));
        } else if (handle instanceof StreamStateHandle stream) {
            parts.add(new Part(stream, Kind.OTHER));
        }
        // Anything else is a kind this project does not write.
    }
}
