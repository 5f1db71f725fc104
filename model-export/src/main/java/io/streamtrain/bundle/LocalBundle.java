package io.streamtrain.bundle;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.files.ScratchDirectory;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A bundle where RocksDB can open it: a local directory as it is, or a remote one ({@code s3://…})
 * copied into a new temporary directory of its own ({@code streamtrain-bundle-N/<name>}), which
 * {@link #close} deletes with everything beside the copy in it (a serving store made from it). Each remote bundle opened gets its own copy, so copying a newer version of the same
 * location never writes into the files of one that is still open.
 */
public final class LocalBundle implements AutoCloseable {
    private final Path source;
    private final Path dir;
    private final ScratchDirectory copy; // null: the source itself

    private LocalBundle(Path source, Path dir, ScratchDirectory copy) {
        this.source = source;
        this.dir = dir;
        this.copy = copy;
    }

    /** {@code bundle} itself when local, else a new local copy of it. */
    public static LocalBundle of(Path bundle) throws IOException {
        if (!ModelStorage.isRemote(bundle)) {
            return new LocalBundle(bundle, bundle, null);
        }
        ScratchDirectory copy = ScratchDirectory.create("streamtrain-bundle-");
        Path dir = copy.path().resolve(bundle.getFileName().toString());
        try {
            ModelStorage.download(bundle, dir);
        } catch (IOException | RuntimeException e) {
            copy.close();
            throw e;
        }
        return new LocalBundle(bundle, dir, copy);
    }

    /** The bundle as given: a local directory, or a remote location's mirror name ({@link ModelStorage#location}). */
    public Path source() {
        return source;
    }

    /** The local directory to open. */
    public Path dir() {
        return dir;
    }

    /** Whether {@link #dir} is a copy of a remote bundle, deleted on {@link #close}. */
    public boolean isCopy() {
        return copy != null;
    }

    /** Deletes the copy of a remote bundle, once nothing has it open; a local bundle stays. */
    @Override
    public void close() {
        if (copy != null) {
            copy.close();
        }
    }
}
