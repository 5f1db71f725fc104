package io.streamtrain.bundle;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.SourceOffsets;
import io.streamtrain.files.OutputFile;
import io.streamtrain.model.ModelKind;
import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a serving bundle from a retained checkpoint or savepoint (files only: the training job
 * keeps running): the rows in a RocksDB database ({@value Bundle#ROWS}; a deep model's dense chunk
 * rows among them, as in the PS), the bias in
 * {@value Bundle#DENSE}, and, last, the {@link ModelCard} with row count and checksum. A bundle
 * without a card is an unfinished export and does not open; the bundle is written under a
 * temporary name and renamed into place when complete, so a failed export leaves none.
 */
public final class BundleWriter {
    private static final Logger LOG = LoggerFactory.getLogger(BundleWriter.class);
    private static final int BATCH = 8192;
    private static final Pattern CHK = Pattern.compile("chk-(\\d+)");

    private BundleWriter() {}

    /**
     * @param mapping the feature mapping used at ingest, recorded for raw-line scoring
     * @param progress gets a line every {@code progressEvery} rows
     */
    public static ModelCard write(Path checkpoint, ModelInfo info, ModelCard.FeatureMapping mapping, Path out,
                                  PrintStream progress, long progressEvery) throws Exception {
        requireEmpty(out);
        return OutputFile.write(out, partial -> writeInto(partial, checkpoint, info, mapping, progress, progressEvery));
    }

    private static ModelCard writeInto(Path out, Path checkpoint, ModelInfo info, ModelCard.FeatureMapping mapping,
                                       PrintStream progress, long progressEvery) throws Exception {
        Files.createDirectories(out);
        long checkpointTime = Files.getLastModifiedTime(checkpoint.resolve("_metadata")).toMillis();
        int width = info.shape().rowWidth();
        float[][] bias = {new float[width]};
        long[] rows = {0};
        long[] checksum = {0};
        long[] expired = {0};
        RocksDB.loadLibrary();
        try (Options options = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(options, out.resolve(Bundle.ROWS).toString());
                WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
                WriteBatch batch = new WriteBatch()) {
            CheckpointRows.read(checkpoint, info, row -> {
                long key = FeatureKey.of(row.field(), row.id());
                if (key == FeatureKey.BIAS) {
                    bias[0] = row.vector();
                } else if (!FeatureKey.isDense(key) && isExpired(row, info, checkpointTime)) {
                    expired[0]++;
                } else {
                    byte[] value = RowCodec.value(row.vector());
                    checksum[0] += RowCodec.digest(key, value);
                    put(db, batch, writeOptions, RowCodec.key(key), value);
                    if (++rows[0] % progressEvery == 0) {
                        progress.printf("export: %d rows%n", rows[0]);
                    }
                }
            });
            flush(db, batch, writeOptions);
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush);
            }
            db.compactRange();
        }
        byte[] dense = RowCodec.value(bias[0]);
        Files.write(out.resolve(Bundle.DENSE), dense);
        checksum[0] += RowCodec.digest(FeatureKey.BIAS, dense);
        if (expired[0] > 0) {
            LOG.info("left out {} rows past the row TTL at the checkpoint", expired[0]);
        }
        ModelCard card = new ModelCard(ModelCard.FORMAT, info.name(), info.model(), info.dim(), width, info.optimizer(), mapping,
                new ModelCard.Source(info.topic(), sourceOffsets(checkpoint)),
                new ModelCard.Checkpoint(checkpoint.toAbsolutePath().toString(), checkpointId(checkpoint), checkpointTime),
                info.rowTtlMs(), null, Instant.now().toString(), projectVersion(),
                ModelCard.Contents.of(rows[0], checksum[0]), info.fields(), info.hidden(), info.crossLayers());
        card.write(out);
        return card;
    }

    private static boolean isExpired(ExportedRow row, ModelInfo info, long checkpointTime) {
        // What the PS would see at the checkpoint: a row past its TTL counts as gone (io.streamtrain.ps.RowExpiry).
        return info.rowTtlMs() > 0 && checkpointTime - row.updatedAt() >= info.rowTtlMs();
    }

    private static void put(RocksDB db, WriteBatch batch, WriteOptions options, byte[] key, byte[] value) {
        try {
            batch.put(key, value);
            if (batch.count() >= BATCH) {
                flush(db, batch, options);
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("writing the bundle's rows failed: " + e.getMessage(), e);
        }
    }

    private static void flush(RocksDB db, WriteBatch batch, WriteOptions options) {
        try {
            db.write(options, batch);
            batch.clear();
        } catch (RocksDBException e) {
            throw new IllegalStateException("writing the bundle's rows failed: " + e.getMessage(), e);
        }
    }

    private static Map<Integer, Long> sourceOffsets(Path checkpoint) {
        try {
            return SourceOffsets.read(checkpoint);
        } catch (Exception e) {
            // A savepoint seeded without a source (bench) has none; the card says so with null.
            LOG.warn("no source offsets in {}: {}", checkpoint, e.toString());
            return null;
        }
    }

    static long checkpointId(Path checkpoint) {
        Matcher m = CHK.matcher(checkpoint.getFileName().toString());
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    static String projectVersion() {
        try (InputStream in = BundleWriter.class.getResourceAsStream("/streamtrain-bundle.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void requireEmpty(Path out) throws IOException {
        if (Files.isRegularFile(out)) {
            throw new IOException("bundle directory " + out + " is a file; give a new or empty directory");
        }
        if (Files.exists(out)) {
            try (Stream<Path> entries = Files.list(out)) {
                if (entries.findAny().isPresent()) {
                    throw new IOException("bundle directory " + out + " is not empty; export writes a new bundle: give a new"
                            + " or empty directory");
                }
            }
        }
    }
}
