package io.streamtrain.bundle;

import io.streamtrain.contract.RowCodec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileWriter;

/**
 * A bundle's rows bulk-loaded into its RocksDB database: sorted by key in memory (a radix sort of
 * the row keys: RocksDB's bytewise order of big-endian keys is their unsigned order), written as
 * SST files of disjoint key ranges in parallel ({@link SstFileWriter}), and ingested in one step,
 * straight into the bottom level: no memtable, no write-ahead log, no compaction afterwards.
 */
final class SortedRows {
    private final long[] keys;
    private final byte[][] values;
    private int size;

    SortedRows(int capacity) {
        keys = new long[capacity];
        values = new byte[capacity][];
    }

    void add(long rowKey, byte[] value) {
        keys[size] = rowKey;
        values[size++] = value;
    }

    int size() {
        return size;
    }

    /** Writes every row into {@code db} through {@code files} SST files made in {@code scratch}. */
    void load(RocksDB db, Options options, Path scratch, int files) throws Exception {
        if (size == 0) {
            return;
        }
        int[] order = unsignedOrder(keys, size);
        int parts = Math.max(1, Math.min(files, size / 10_000 + 1));
        List<String> written = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(parts);
        try {
            List<Future<String>> running = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                int from = (int) ((long) size * p / parts);
                int to = (int) ((long) size * (p + 1) / parts);
                String file = scratch.resolve("rows-" + p + ".sst").toString();
                running.add(pool.submit(() -> write(options, file, order, from, to)));
            }
            for (Future<String> f : running) {
                written.add(f.get());
            }
        } finally {
            pool.shutdown();
        }
        try (IngestExternalFileOptions ingest = new IngestExternalFileOptions().setMoveFiles(true)) {
            db.ingestExternalFile(written, ingest);
        }
    }

    private String write(Options options, String file, int[] order, int from, int to) throws RocksDBException, IOException {
        try (EnvOptions env = new EnvOptions(); SstFileWriter writer = new SstFileWriter(env, options)) {
            writer.open(file);
            for (int i = from; i < to; i++) {
                writer.put(RowCodec.key(keys[order[i]]), values[order[i]]);
            }
            writer.finish();
        }
        return file;
    }

    /** Indexes of {@code keys[0..n)} in unsigned key order (LSD radix sort by byte; bytes all keys share are skipped). */
    static int[] unsignedOrder(long[] keys, int n) {
        long[] from = Arrays.copyOf(keys, n);
        long[] to = new long[n];
        int[] order = new int[n];
        int[] next = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
            int[] start = new int[257];
            for (int i = 0; i < n; i++) {
                start[(int) (from[i] >>> shift & 0xFF) + 1]++;
            }
            boolean shared = false;
            for (int b = 1; b <= 256; b++) {
                shared |= start[b] == n;
            }
            if (shared) {
                continue;
            }
            for (int b = 1; b <= 256; b++) {
                start[b] += start[b - 1];
            }
            for (int i = 0; i < n; i++) {
                int at = start[(int) (from[i] >>> shift & 0xFF)]++;
                to[at] = from[i];
                next[at] = order[i];
            }
            long[] k = from;
            from = to;
            to = k;
            int[] o = order;
            order = next;
            next = o;
        }
        return order;
    }
}
