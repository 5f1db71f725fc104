package io.streamtrain.export;

import java.io.IOException;
import java.nio.file.Path;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileReader;

/**
 * Checks a RocksDB SST file against the checksums RocksDB stores with every block of it. This reads
 * the whole file once, so checking a checkpoint this way costs one sequential read of its state
 * (what a restore downloads anyway), but it turns a flipped byte into an error naming the file
 * instead of a task that fails deep inside its restore and restarts into the same failure.
 */
final class SstChecksums {
    private SstChecksums() {}

    /** Returns null when every block of {@code sst} matches its checksum, else RocksDB's reason. */
    static String mismatch(Path sst) throws IOException {
        RocksDB.loadLibrary(); // a no-op once Flink's RocksDB backend (or an earlier call) loaded it
        try (Options options = new Options(); SstFileReader reader = new SstFileReader(options)) {
            reader.open(sst.toString());
            reader.verifyChecksum();
            return null;
        } catch (RocksDBException e) {
            return e.getMessage() != null ? e.getMessage() : String.valueOf(e.getStatus());
        }
    }
}
