package io.streamtrain.contract;

import io.streamtrain.files.ScratchDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;

/**
 * The one place a model location (a checkpoint directory, a checkpoint or savepoint, a bundle) is
 * resolved: a local path, or a directory on any file system Flink reaches ({@code s3://bucket/key},
 * through the S3 plugin {@link FileSystemPlugins} loads).
 *
 * <p>A remote location is named locally by its <em>mirror</em>, a directory under this process's
 * temporary directory ({@code streamtrain-remote/<scheme>/<bucket>/<key>}), so that the code that
 * works on {@link Path}s stays one code path. What the mirror holds depends on the reader: the
 * small files that name the checkpoints ({@link #refreshCheckpoints}: {@code model.json},
 * {@code handover.json}, each {@code _metadata}). A whole directory (a bundle, which RocksDB opens
 * from local disk) is copied into a new local directory of the caller's instead ({@link #download}). State files are never copied: Flink reads them from the
 * remote file system through the handles in {@code _metadata}, and {@link #uri} gives Flink the
 * remote location wherever it reads or restores one (the handles of a savepoint are relative to it).
 */
public final class ModelStorage {
    private static final String MIRRORS = "streamtrain-remote";
    private static final String METADATA = "_metadata";
    private static final Set<String> DESCRIPTORS = Set.of(ModelInfo.FILE, "handover.json");

    private ModelStorage() {}

    /** A location as given on a command line or in a configuration: a path, a {@code file:} URI, or a remote URI (its mirror). */
    public static Path local(String location) {
        URI uri = parse(location);
        if (uri == null || uri.getScheme() == null) {
            return Path.of(location);
        }
        if ("file".equals(uri.getScheme())) {
            return Path.of(uri);
        }
        if (uri.getAuthority() == null) {
            throw new IllegalArgumentException(location + ": a remote location names its bucket, as in " + uri.getScheme() + "://BUCKET/KEY");
        }
        Path mirror = mirrors().resolve(uri.getScheme()).resolve(uri.getAuthority());
        for (String part : uri.getPath().split("/")) {
            if (!part.isEmpty()) {
                mirror = mirror.resolve(part);
            }
        }
        return mirror;
    }

    /** Where Flink finds {@code path}: the remote location of a mirror, else the local file. */
    public static URI uri(Path path) {
        Path p = path.toAbsolutePath().normalize();
        Path root = mirrors();
        if (!p.startsWith(root) || p.getNameCount() < root.getNameCount() + 2) {
            return p.toUri();
        }
        Path relative = root.relativize(p);
        StringBuilder key = new StringBuilder();
        for (int i = 2; i < relative.getNameCount(); i++) {
            key.append('/').append(relative.getName(i));
        }
        try {
            return new URI(relative.getName(0).toString(), relative.getName(1).toString(), key.isEmpty() ? "/" : key.toString(), null, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(path + " is not a valid remote location", e);
        }
    }

    /** {@link #uri} as Flink's path. */
    public static org.apache.flink.core.fs.Path flinkPath(Path path) {
        return new org.apache.flink.core.fs.Path(uri(path));
    }

    /** How to name {@code path} to a user or in a file: the remote URI of a mirror, else the absolute local path. */
    public static String location(Path path) {
        return isRemote(path) ? uri(path).toString() : path.toAbsolutePath().toString();
    }

    /** Whether {@code file} exists as a file, locally or at its remote location. */
    public static boolean isFile(Path file) throws IOException {
        org.apache.flink.core.fs.Path target = flinkPath(file);
        FileSystem fs = target.getFileSystem();
        return fs.exists(target) && !fs.getFileStatus(target).isDir();
    }

    /** Opens {@code file}, local or at its remote location. */
    public static InputStream open(Path file) throws IOException {
        org.apache.flink.core.fs.Path source = flinkPath(file);
        return source.getFileSystem().open(source);
    }

    /** Whether {@code path} names a remote location (its mirror). */
    public static boolean isRemote(Path path) {
        return !"file".equals(uri(path).getScheme());
    }

    /**
     * Brings a remote checkpoint directory's mirror up to date: its {@code model.json} and
     * {@code handover.json}, and the {@code _metadata} of each complete checkpoint
     * ({@code JOB/chk-N}) and savepoint ({@code savepoint-…}) with the time it was written;
     * checkpoints the job has since subsumed leave the mirror. Does nothing for a local directory.
     */
    public static void refreshCheckpoints(Path dir) {
        if (!isRemote(dir)) {
            return;
        }
        try {
            org.apache.flink.core.fs.Path remote = flinkPath(dir);
            FileSystem fs = remote.getFileSystem();
            Set<Path> present = new HashSet<>();
            for (FileStatus entry : list(fs, remote)) {
                String name = entry.getPath().getName();
                if (!entry.isDir()) {
                    if (DESCRIPTORS.contains(name)) {
                        copy(fs, entry, dir.resolve(name));
                    }
                } else if (name.startsWith("savepoint-")) {
                    copyMetadata(fs, entry.getPath(), dir.resolve(name), present);
                } else {
                    for (FileStatus checkpoint : list(fs, entry.getPath())) {
                        if (checkpoint.isDir() && checkpoint.getPath().getName().startsWith("chk-")) {
                            copyMetadata(fs, checkpoint.getPath(), dir.resolve(name).resolve(checkpoint.getPath().getName()), present);
                        }
                    }
                }
            }
            forgetSubsumed(dir, present);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + uri(dir) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Copies a whole remote directory into the local directory {@code into} (created), file by
     * file. The caller chooses a new directory for each copy: a copy never writes into files that
     * another reader (an open bundle) may hold.
     */
    public static void download(Path dir, Path into) throws IOException {
        org.apache.flink.core.fs.Path remote = flinkPath(dir);
        FileSystem fs = remote.getFileSystem();
        if (!fs.exists(remote)) {
            throw new IOException("no such directory: " + remote);
        }
        downloadInto(fs, remote, into);
    }

    /**
     * What tells one state of a remote directory from another: every file under it with its size
     * and the time it was written, and the content of {@code read} (a small descriptor such as a
     * model card, which a rewrite within the same second changes too); empty when nothing is there.
     */
    public static String fingerprint(Path dir, String read) throws IOException {
        org.apache.flink.core.fs.Path remote = flinkPath(dir);
        FileSystem fs = remote.getFileSystem();
        StringBuilder print = new StringBuilder();
        fingerprint(fs, remote, "", print);
        org.apache.flink.core.fs.Path descriptor = new org.apache.flink.core.fs.Path(remote, read);
        if (fs.exists(descriptor)) {
            try (InputStream in = fs.open(descriptor)) {
                print.append('\n').append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return print.toString();
    }

    private static void fingerprint(FileSystem fs, org.apache.flink.core.fs.Path dir, String prefix, StringBuilder print) throws IOException {
        FileStatus[] entries = list(fs, dir);
        Arrays.sort(entries, Comparator.comparing(e -> e.getPath().getName()));
        for (FileStatus entry : entries) {
            String name = prefix + entry.getPath().getName();
            if (entry.isDir()) {
                fingerprint(fs, entry.getPath(), name + "/", print);
            } else {
                print.append(name).append(' ').append(entry.getLen()).append(' ').append(entry.getModificationTime()).append('\n');
            }
        }
    }

    /** Writes {@code bytes} to {@code file}, a local path or a mirror (then to its remote location). */
    public static void write(Path file, byte[] bytes) throws IOException {
        org.apache.flink.core.fs.Path target = flinkPath(file);
        FileSystem fs = target.getFileSystem();
        fs.mkdirs(target.getParent());
        try (OutputStream out = fs.create(target, FileSystem.WriteMode.OVERWRITE)) {
            out.write(bytes);
        }
    }

    /** Copies one file between locations, local or remote. */
    public static void copy(Path from, Path to) throws IOException {
        try (InputStream in = open(from)) {
            write(to, in.readAllBytes());
        }
    }

    /** Deletes a directory and everything in it, local or remote (and its mirror). */
    public static void deleteRecursively(Path dir) throws IOException {
        org.apache.flink.core.fs.Path target = flinkPath(dir);
        target.getFileSystem().delete(target, true);
        if (isRemote(dir)) {
            ScratchDirectory.deleteRecursively(dir);
        }
    }

    private static void downloadInto(FileSystem fs, org.apache.flink.core.fs.Path remote, Path local) throws IOException {
        Files.createDirectories(local);
        for (FileStatus entry : list(fs, remote)) {
            Path target = local.resolve(entry.getPath().getName());
            if (entry.isDir()) {
                downloadInto(fs, entry.getPath(), target);
            } else {
                copy(fs, entry, target);
            }
        }
    }

    private static void copyMetadata(FileSystem fs, org.apache.flink.core.fs.Path checkpoint, Path mirror, Set<Path> present) throws IOException {
        org.apache.flink.core.fs.Path metadata = new org.apache.flink.core.fs.Path(checkpoint, METADATA);
        FileStatus status;
        try {
            status = fs.getFileStatus(metadata);
        } catch (java.io.FileNotFoundException incomplete) {
            return; // still being written, or being deleted
        }
        present.add(mirror);
        copy(fs, status, mirror.resolve(METADATA));
    }

    /** Copies a file that is new or changed (by size and time), with the time it was written remotely. */
    private static void copy(FileSystem fs, FileStatus status, Path target) throws IOException {
        FileTime written = FileTime.fromMillis(status.getModificationTime());
        if (Files.isRegularFile(target) && Files.size(target) == status.getLen() && Files.getLastModifiedTime(target).equals(written)) {
            return;
        }
        Files.createDirectories(target.getParent());
        Path partial = target.resolveSibling(target.getFileName() + ".partial");
        try (InputStream in = fs.open(status.getPath())) {
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.setLastModifiedTime(partial, written);
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void forgetSubsumed(Path dir, Set<Path> present) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> metadata = Files.walk(dir, 3)) {
            for (Path file : metadata.filter(p -> p.getFileName().toString().equals(METADATA)).toList()) {
                if (!present.contains(file.getParent())) {
                    Files.deleteIfExists(file);
                    try {
                        Files.deleteIfExists(file.getParent());
                    } catch (java.nio.file.DirectoryNotEmptyException partial) {
                        // a copy cut short left its partial file: the directory goes with the next refresh
                    }
                }
            }
        }
    }

    private static FileStatus[] list(FileSystem fs, org.apache.flink.core.fs.Path dir) throws IOException {
        try {
            FileStatus[] entries = fs.listStatus(dir);
            return entries == null ? new FileStatus[0] : entries;
        } catch (java.io.FileNotFoundException missing) {
            return new FileStatus[0];
        }
    }

    private static URI parse(String location) {
        if (!location.contains("://") && !location.startsWith("file:")) {
            return null;
        }
        try {
            return new URI(location);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(location + " is not a valid URI: " + e.getMessage(), e);
        }
    }

    private static Path mirrors() {
        return Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize().resolve(MIRRORS);
    }
}
