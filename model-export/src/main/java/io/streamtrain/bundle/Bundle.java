package io.streamtrain.bundle;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.contract.RowVersion;
import io.streamtrain.model.deep.DenseLayout;
import io.streamtrain.export.DenseBlocks;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A serving bundle opened for lookups. {@link #open} opens an exported bundle read-only and checks
 * its row count and checksum against the model card. {@link #openStore} opens a writable serving
 * store made from a bundle, which {@code serve --follow} keeps current with the model-updates topic
 * (applied rows, the bias and the topic offsets are written together in one batch, so a restarted
 * server resumes where it stopped).
 *
 * <p>A feature the bundle has no row for (never seen, not admitted, or expired) gets the zero
 * vector: it contributes nothing to the score, exactly as in training.
 *
 * <p>A deep model's dense tower is in the same database, as the PS keeps it: its chunk rows
 * ({@link DenseChunks}, {@value DenseChunks#WIDTH} floats each) under the dense field. They count
 * among the card's rows and its checksum; {@link #dense()} is the flat parameter array they make.
 */
public final class Bundle implements AutoCloseable {
    public static final String ROWS = "rows";
    public static final String DENSE = "dense.bin";
    private static final byte[] FOLLOW_FAMILY = "follow".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    private static final byte[] VERSIONS_FAMILY = "versions".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    private static final byte[] BIAS_KEY = RowCodec.key(FeatureKey.BIAS);

    static {
        RocksDB.loadLibrary();
    }

    private final ModelCard card;
    private final RocksDB db;
    private final List<ColumnFamilyHandle> handles;
    private final ColumnFamilyHandle follow; // null when read-only
    private final ColumnFamilyHandle versions; // the followed rows' versions (RowVersion); null when read-only
    private final int width;
    private final DenseLayout layout;
    private volatile float[] bias;
    private volatile float[] dense;

    private Bundle(ModelCard card, RocksDB db, List<ColumnFamilyHandle> handles, float[] bias) {
        this.card = card;
        this.db = db;
        this.handles = handles;
        this.follow = handles.size() > 1 ? handles.get(1) : null;
        this.versions = handles.size() > 2 ? handles.get(2) : null;
        this.width = card.rowWidth();
        this.layout = card.shape().denseLayout();
        this.bias = bias;
        this.dense = readDense(db, layout);
    }

    /** The flat dense parameters from their chunk rows; a chunk the bundle lacks reads as zeros. */
    private static float[] readDense(RocksDB db, DenseLayout layout) {
        float[] flat = new float[layout.size()];
        for (int c = 0; c < DenseChunks.count(layout.size()); c++) {
            try {
                byte[] value = db.get(RowCodec.key(DenseChunks.key(c)));
                if (value != null) {
                    DenseBlocks.copyInto(c, RowCodec.weights(value, DenseChunks.WIDTH), flat);
                }
            } catch (RocksDBException e) {
                throw new IllegalStateException("reading the dense tower of the bundle failed: " + e.getMessage(), e);
            }
        }
        return flat;
    }

    /** Opens an exported bundle read-only, after checking its rows against the card's count and checksum. */
    public static Bundle open(Path dir) throws IOException {
        ModelCard card = ModelCard.read(dir);
        RocksDB db;
        try (Options options = new Options()) {
            db = RocksDB.openReadOnly(options, dir.resolve(ROWS).toString());
        } catch (RocksDBException e) {
            throw new IOException("cannot open the rows of bundle " + dir + ": " + e.getMessage(), e);
        }
        Bundle bundle = new Bundle(card, db, List.of(), RowCodec.weights(Files.readAllBytes(dir.resolve(DENSE)), card.rowWidth()));
        try {
            bundle.verify();
        } catch (IOException | RuntimeException e) {
            bundle.close();
            throw e;
        }
        return bundle;
    }

    /**
     * Opens (creating it from {@code bundle} on first use, verified) a writable serving store in
     * {@code store}. A store made from another bundle is refused rather than silently mixed.
     */
    public static Bundle openStore(Path bundle, Path store) throws IOException {
        ModelCard card = ModelCard.read(bundle);
        if (Files.isRegularFile(store.resolve(ModelCard.FILE))) {
            ModelCard existing = ModelCard.read(store);
            if (!existing.contents().equals(card.contents()) || !existing.checkpoint().equals(card.checkpoint())) {
                throw new IOException("serving store " + store + " was made from another bundle ("
                        + existing.checkpoint().path() + "); remove it or choose a new --store");
            }
        } else {
            copyBundle(bundle, store);
            try (Bundle copy = open(store)) {
                // verified: a store starts from exactly the exported rows
            }
        }
        List<ColumnFamilyDescriptor> families = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY), new ColumnFamilyDescriptor(FOLLOW_FAMILY),
                new ColumnFamilyDescriptor(VERSIONS_FAMILY));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB db;
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)) {
            db = RocksDB.open(options, store.resolve(ROWS).toString(), families, handles);
        } catch (RocksDBException e) {
            throw new IOException("cannot open serving store " + store + ": " + e.getMessage(), e);
        }
        float[] bias;
        try {
            byte[] followed = db.get(handles.get(1), BIAS_KEY);
            bias = RowCodec.weights(followed != null ? followed : Files.readAllBytes(store.resolve(DENSE)), card.rowWidth());
        } catch (RocksDBException e) {
            db.close();
            throw new IOException("cannot read serving store " + store + ": " + e.getMessage(), e);
        }
        return new Bundle(card, db, handles, bias);
    }

    public ModelCard card() {
        return card;
    }

    public int width() {
        return width;
    }

    public float[] bias() {
        return bias;
    }

    /** The dense tower's parameters in {@link DenseLayout} order (empty for lr and fm); a followed store's latest. */
    public float[] dense() {
        return dense;
    }

    /** The row's weights, or null when the bundle has none (the caller uses zeros). */
    public float[] rowOrNull(long rowKey) {
        try {
            byte[] value = db.get(RowCodec.key(rowKey));
            return value == null ? null : RowCodec.weights(value, width);
        } catch (RocksDBException e) {
            throw new IllegalStateException("bundle lookup failed: " + e.getMessage(), e);
        }
    }

    /** The row's weights; the documented default, a zero vector, for a feature without a row. */
    public float[] row(long rowKey) {
        float[] w = rowOrNull(rowKey);
        return w != null ? w : new float[width];
    }

    /** The row keys of up to {@code n} rows, in key order (load generators pick real features from them). */
    public long[] firstKeys(int n) {
        long[] keys = new long[n];
        int i = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid() && i < n; it.next()) {
                long key = RowCodec.rowKey(it.key());
                if (!FeatureKey.isDense(key)) {
                    keys[i++] = key;
                }
            }
        }
        return java.util.Arrays.copyOf(keys, i);
    }

    /** Recounts the rows and recomputes the checksum; throws when either differs from the card. */
    public void verify() throws IOException {
        long rows = 0;
        long checksum = RowCodec.digest(FeatureKey.BIAS, RowCodec.value(bias));
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                checksum += RowCodec.digest(RowCodec.rowKey(it.key()), it.value());
                rows++;
            }
            it.status();
        } catch (RocksDBException e) {
            throw new IOException("reading the bundle failed: " + e.getMessage(), e);
        }
        ModelCard.Contents expected = card.contents();
        if (rows != expected.rows() || checksum != expected.checksumValue()) {
            throw new BundleCorruptException(String.format(
                    "bundle does not match its model card: %d rows with checksum %016x, the card says %d rows with checksum %s",
                    rows, checksum, expected.rows(), expected.checksum()));
        }
    }

    /** A row update for {@link #apply}: its weights, and its version or {@link RowVersion#NONE}. */
    public record RowUpdate(float[] weights, long version) {}

    /**
     * Serving store only: the versions the store holds of {@code keys} (as {@link #apply} wrote
     * them), {@link RowVersion#NONE} for a row it holds without one (the bundle's own rows).
     */
    public long[] versions(List<Long> keys) {
        if (versions == null) {
            throw new IllegalStateException("a read-only bundle has no row versions; open a serving store");
        }
        List<ColumnFamilyHandle> families = java.util.Collections.nCopies(keys.size(), versions);
        List<byte[]> rowKeys = keys.stream().map(RowCodec::key).toList();
        try {
            List<byte[]> values = db.multiGetAsList(families, rowKeys);
            long[] result = new long[keys.size()];
            for (int i = 0; i < result.length; i++) {
                result[i] = values.get(i) == null ? RowVersion.NONE : ByteBuffer.wrap(values.get(i)).getLong();
            }
            return result;
        } catch (RocksDBException e) {
            throw new IllegalStateException("reading row versions failed: " + e.getMessage(), e);
        }
    }

    /**
     * Serving store only: writes full rows (the bias under {@link FeatureKey#BIAS}) with their
     * versions (an update without one clears the row's) and the next offsets of the followed
     * topic's partitions, atomically.
     */
    public void apply(Map<Long, RowUpdate> rows, Map<Integer, Long> nextOffsets) {
        if (follow == null) {
            throw new IllegalStateException("a read-only bundle takes no updates; open a serving store");
        }
        try (WriteBatch batch = new WriteBatch(); WriteOptions options = new WriteOptions()) {
            float[] newBias = null;
            float[] newDense = null;
            for (Map.Entry<Long, RowUpdate> e : rows.entrySet()) {
                float[] weights = e.getValue().weights();
                int expected = DenseChunks.rowWidth(e.getKey(), width);
                if (weights.length != expected) {
                    throw new IllegalArgumentException("update of row " + e.getKey() + " has width " + weights.length + ", the model " + expected);
                }
                if (FeatureKey.isDense(e.getKey())) {
                    newDense = newDense != null ? newDense : dense.clone();
                    DenseBlocks.copyInto(DenseChunks.chunkOf(e.getKey()), weights, newDense);
                }
                byte[] key = RowCodec.key(e.getKey());
                byte[] value = RowCodec.value(weights);
                if (e.getKey() == FeatureKey.BIAS) {
                    batch.put(follow, BIAS_KEY, value);
                    newBias = weights;
                } else {
                    batch.put(key, value);
                }
                long version = e.getValue().version();
                if (version == RowVersion.NONE) {
                    batch.delete(versions, key);
                } else {
                    batch.put(versions, key, ByteBuffer.allocate(Long.BYTES).putLong(version).array());
                }
            }
            for (Map.Entry<Integer, Long> e : nextOffsets.entrySet()) {
                batch.put(follow, offsetKey(e.getKey()), ByteBuffer.allocate(Long.BYTES).putLong(e.getValue()).array());
            }
            db.write(options, batch);
            if (newBias != null) {
                bias = newBias;
            }
            if (newDense != null) {
                dense = newDense; // scorers see a whole batch's tower or none of it
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("applying model updates failed: " + e.getMessage(), e);
        }
    }

    /** Serving store only: partition → next offset to read, as last applied. Empty for a new store. */
    public Map<Integer, Long> followedOffsets() {
        Map<Integer, Long> offsets = new TreeMap<>();
        if (follow == null) {
            return offsets;
        }
        try (RocksIterator it = db.newIterator(follow)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (key.length == 5 && key[0] == 'o') {
                    offsets.put(ByteBuffer.wrap(key, 1, 4).getInt(), ByteBuffer.wrap(it.value()).getLong());
                }
            }
        }
        return offsets;
    }

    private static byte[] offsetKey(int partition) {
        return ByteBuffer.allocate(5).put((byte) 'o').putInt(partition).array();
    }

    /** Hard links where the file system allows them (SST files are immutable), copies otherwise. */
    private static void copyBundle(Path bundle, Path store) throws IOException {
        Files.createDirectories(store.resolve(ROWS));
        try (Stream<Path> files = Files.list(bundle.resolve(ROWS))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path target = store.resolve(ROWS).resolve(f.getFileName());
                if (f.getFileName().toString().endsWith(".sst")) {
                    try {
                        Files.createLink(target, f);
                        continue;
                    } catch (IOException | UnsupportedOperationException e) {
                        // another file system: copy
                    }
                }
                Files.copy(f, target);
            }
        }
        Files.copy(bundle.resolve(DENSE), store.resolve(DENSE));
        Files.copy(bundle.resolve(ModelCard.FILE), store.resolve(ModelCard.FILE)); // last: marks the store complete
    }

    @Override
    public void close() {
        handles.forEach(ColumnFamilyHandle::close);
        db.close();
    }

    /** The bundle's rows do not match its model card. */
    public static final class BundleCorruptException extends IOException {
        private static final long serialVersionUID = 1L;

        BundleCorruptException(String message) {
            super(message);
        }
    }
}
