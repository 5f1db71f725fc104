package io.streamtrain.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.rocksdb.NativeLibraryLoader;
import org.rocksdb.util.Environment;

/**
 * Unpacks the RocksDB JNI library from the classpath once per cluster, into a directory the
 * TaskManagers get on their {@code java.library.path}. RocksDB's loader tries
 * {@code System.loadLibrary} before it copies the 13 MB library out of the jar into a fresh temp
 * directory, which it otherwise does in every new TaskManager, on the rescale's critical path
 * (1.4 s of the 2 → 3 step, docs/benchmarks.md).
 */
final class NativeLibraries {
    private NativeLibraries() {}

    /** Unpacks the library for this platform into the cluster's lib directory, replacing what is there. */
    static void unpackRocksDb(ClusterLayout layout) throws IOException {
        String file = rocksDbFile();
        try (InputStream in = NativeLibraryLoader.class.getClassLoader().getResourceAsStream(file)) {
            if (in == null) {
                throw new IOException("no " + file + " on the classpath for this platform (" + System.getProperty("os.arch") + ")");
            }
            Files.createDirectories(layout.libDir());
            // Unpack beside the target and rename: a TaskManager never sees half a library, and one
            // that has the old file mapped keeps it.
            Path partial = Files.createTempFile(layout.libDir(), file, ".partial");
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            Files.move(partial, layout.libDir().resolve(file), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Whether {@link #unpackRocksDb} has run for this cluster (a cluster started by an older version has no lib directory). */
    static boolean rocksDbUnpacked(ClusterLayout layout) {
        return Files.isRegularFile(layout.libDir().resolve(rocksDbFile()));
    }

    private static String rocksDbFile() {
        return Environment.getJniLibraryFileName("rocksdb");
    }

    /** {@code dir} ahead of this JVM's own library path. */
    static String libraryPath(Path dir) {
        String inherited = System.getProperty("java.library.path", "");
        return inherited.isEmpty() ? dir.toString() : dir + java.io.File.pathSeparator + inherited;
    }
}
