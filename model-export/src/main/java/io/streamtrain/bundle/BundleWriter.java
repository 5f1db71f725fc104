package io.streamtrain.bundle;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.SourceOffsets;
import io.streamtrain.files.OutputFile;
import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.model.ModelKind;
import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
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
        List<TaskRows> parts = Collections.synchronizedList(new ArrayList<>());
        AtomicLong read = new AtomicLong();
        CheckpointRows.read(checkpoint, info, () -> {
            TaskRows part = new TaskRows(info, checkpointTime, read, progress, progressEvery);
            parts.add(part);
            return part;
        });
        float[] bias = new float[info.shape().rowWidth()];
        long checksum = 0;
        long expired = 0;
        int rows = 0;
        for (TaskRows part : parts) {
            bias = part.bias != null ? part.bias : bias;
            checksum += part.checksum;
            expired += part.expired;
            rows = Math.addExact(rows, part.size);
        }
        SortedRows sorted = new SortedRows(rows);
        for (TaskRows part : parts) {
            for (int i = 0; i < part.size; i++) {
                sorted.add(part.keys[i], part.values[i]);
            }
            part.clear();
        }
        RocksDB.loadLibrary();
        Path sstFiles = Files.createDirectories(out.resolve("sst-load")); // beside the database: ingesting moves them, no copy
        try (Options options = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(options, out.resolve(Bundle.ROWS).toString())) {
            sorted.load(db, options, sstFiles, Runtime.getRuntime().availableProcessors());
        } finally {
            ScratchDirectory.deleteRecursively(sstFiles);
        }
        byte[] dense = RowCodec.value(bias);
        Files.write(out.resolve(Bundle.DENSE), dense);
        checksum += RowCodec.digest(FeatureKey.BIAS, dense);
        if (expired > 0) {
            LOG.info("left out {} rows past the row TTL at the checkpoint", expired);
        }
        ModelCard card = new ModelCard(ModelCard.FORMAT, info.name(), info.model(), info.dim(), info.shape().rowWidth(), info.optimizer(),
                mapping, new ModelCard.Source(info.topic(), sourceOffsets(checkpoint)),
                new ModelCard.Checkpoint(checkpoint.toAbsolutePath().toString(), checkpointId(checkpoint), checkpointTime),
                info.rowTtlMs(), null, Instant.now().toString(), projectVersion(),
                ModelCard.Contents.of(rows, checksum), info.fields(), info.hidden(), info.crossLayers());
        card.write(out);
        return card;
    }

    /**
     * The rows one reader task put out, encoded for the bundle on the reader's thread: the bias row
     * set aside, rows past the TTL counted and left out, the others' keys, values and checksum kept.
     */
    private static final class TaskRows implements Consumer<ExportedRow> {
        private final ModelInfo info;
        private final long checkpointTime;
        private final AtomicLong read;
        private final PrintStream progress;
        private final long progressEvery;
        long[] keys = new long[1024];
        byte[][] values = new byte[1024][];
        int size;
        float[] bias;
        long checksum;
        long expired;

        TaskRows(ModelInfo info, long checkpointTime, AtomicLong read, PrintStream progress, long progressEvery) {
            this.info = info;
            this.checkpointTime = checkpointTime;
            this.read = read;
            this.progress = progress;
            this.progressEvery = progressEvery;
        }

        @Override
        public void accept(ExportedRow row) {
            long key = FeatureKey.of(row.field(), row.id());
            if (key == FeatureKey.BIAS) {
                bias = row.vector();
                return;
            }
            if (!FeatureKey.isDense(key) && isExpired(row, info, checkpointTime)) {
                expired++;
                return;
            }
            byte[] value = RowCodec.value(row.vector());
            checksum += RowCodec.digest(key, value);
            if (size == keys.length) {
                keys = Arrays.copyOf(keys, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            keys[size] = key;
            values[size++] = value;
            if ((size & 4095) == 0) {
                long total = read.addAndGet(4096);
                if (total / progressEvery != (total - 4096) / progressEvery) {
                    progress.printf("export: %d rows%n", total / progressEvery * progressEvery);
                }
            }
        }

        void clear() {
            keys = null;
            values = null;
        }
    }

    private static boolean isExpired(ExportedRow row, ModelInfo info, long checkpointTime) {
        // What the PS would see at the checkpoint: a row past its TTL counts as gone (io.streamtrain.ps.RowExpiry).
        return info.rowTtlMs() > 0 && checkpointTime - row.updatedAt() >= info.rowTtlMs();
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
