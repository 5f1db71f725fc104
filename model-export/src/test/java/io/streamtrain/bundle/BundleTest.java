package io.streamtrain.bundle;

import io.streamtrain.export.LoadedModel;
import io.streamtrain.model.Examples;
import io.streamtrain.model.ModelShape;
import io.streamtrain.ps.row.DenseChunks;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.contract.RowVersion;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.schema.FeatureKey;
import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** Export → bundle → lookups give exactly the checkpoint's rows; a tampered bundle does not open. */
class BundleTest {
    private static final ModelInfo INFO = TestTables.info("fm", 4);
    private static final int ROWS = 3000;
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @TempDir
    static Path dir;
    static Path savepoint;
    static Path bundle;
    static ModelCard card;

    @BeforeAll
    static void exportTable() throws Exception {
        savepoint = TestTables.write(dir.resolve("savepoint"), INFO, ROWS);
        bundle = dir.resolve("bundle");
        card = BundleWriter.write(savepoint, INFO, ModelCard.FeatureMapping.of("libffm", 24), bundle, QUIET, 1000);
    }

    @Test
    void roundTripGivesTheCheckpointsRows() throws Exception {
        List<ExportedRow> expected = CheckpointRows.readAll(savepoint, INFO);
        assertEquals(ROWS + 1, expected.size(), "the table and its bias row");
        try (Bundle b = Bundle.open(bundle)) {
            assertEquals(ROWS, b.card().contents().rows());
            for (ExportedRow row : expected) {
                long key = FeatureKey.of(row.field(), row.id());
                float[] got = key == FeatureKey.BIAS ? b.bias() : b.rowOrNull(key);
                assertArrayEquals(row.vector(), got, "row " + row.field() + ":" + row.id());
            }
        }
    }

    @Test
    void firstKeysAreRowsInKeyOrder() throws Exception {
        try (Bundle b = Bundle.open(bundle)) {
            long[] keys = b.firstKeys(50);
            assertEquals(50, keys.length);
            for (int i = 0; i < keys.length; i++) {
                assertTrue(i == 0 || keys[i - 1] < keys[i], "sorted");
                assertTrue(b.rowOrNull(keys[i]) != null, "a row");
            }
            assertEquals(ROWS, b.firstKeys(ROWS + 10).length, "at most the rows there are");
        }
    }

    @Test
    void unknownFeaturesGetTheZeroVector() throws Exception {
        try (Bundle b = Bundle.open(bundle)) {
            long never = FeatureKey.of(3, 1);
            assertNull(b.rowOrNull(never));
            assertArrayEquals(new float[5], b.row(never));
        }
    }

    @Test
    void cardDescribesTheModel() throws Exception {
        ModelCard read = ModelCard.read(bundle);
        assertEquals(card, read);
        assertEquals("fm", read.modelType());
        assertEquals(4, read.dim());
        assertEquals(5, read.rowWidth());
        assertEquals("libffm", read.mapping().inputFormat());
        assertEquals("test-topic", read.source().topic());
        assertEquals(-1, read.checkpoint().id(), "a savepoint has no checkpoint id");
        assertTrue(read.projectVersion().matches("\\d+\\.\\d+\\.\\d+.*"), read.projectVersion());
    }

    @Test
    void aChangedValueFailsTheChecksum() throws Exception {
        Path copy = copyOf(bundle, dir.resolve("tampered"));
        long victim = TestTables.key(17);
        float[] w = TestTables.weights(17, 5);
        w[2] += 1e-3f;
        try (Options o = new Options(); RocksDB db = RocksDB.open(o, copy.resolve(Bundle.ROWS).toString())) {
            db.put(RowCodec.key(victim), RowCodec.value(w));
        }
        Bundle.BundleCorruptException e = assertThrows(Bundle.BundleCorruptException.class, () -> Bundle.open(copy));
        assertTrue(e.getMessage().contains(ROWS + " rows with checksum"), e.getMessage());
    }

    @Test
    void aMissingRowFailsTheCount() throws Exception {
        Path copy = copyOf(bundle, dir.resolve("missing"));
        try (Options o = new Options(); RocksDB db = RocksDB.open(o, copy.resolve(Bundle.ROWS).toString())) {
            db.delete(RowCodec.key(TestTables.key(5)));
        }
        Bundle.BundleCorruptException e = assertThrows(Bundle.BundleCorruptException.class, () -> Bundle.open(copy));
        assertTrue(e.getMessage().contains((ROWS - 1) + " rows"), e.getMessage());
    }

    @Test
    void aChangedBiasFailsTheChecksum() throws Exception {
        Path copy = copyOf(bundle, dir.resolve("bias"));
        Files.write(copy.resolve(Bundle.DENSE), RowCodec.value(new float[5]));
        assertThrows(Bundle.BundleCorruptException.class, () -> Bundle.open(copy));
    }

    @Test
    void exportRefusesANonEmptyDirectory() {
        Exception e = assertThrows(java.io.IOException.class,
                () -> BundleWriter.write(savepoint, INFO, ModelCard.FeatureMapping.of(null, 24), bundle, QUIET, 1000));
        assertTrue(e.getMessage().contains("not empty"), e.getMessage());
    }

    /** Flink's frocksdbjni provides org.rocksdb here, not a second RocksDB JNI (see docs/ARCHITECTURE.md). */
    @Test
    void theRocksDbInUseIsFlinksFrocksdb() {
        String jar = RocksDB.class.getProtectionDomain().getCodeSource().getLocation().toString();
        assertTrue(jar.contains("frocksdbjni"), jar);
    }

    @Test
    void servingStoreStartsFromTheBundleAndKeepsUpdatesVersionsAndOffsets() throws Exception {
        Path store = dir.resolve("store");
        long key = TestTables.key(3);
        long unversioned = TestTables.key(4);
        float[] updated = {1, 2, 3, 4, 5};
        try (Bundle s = Bundle.openStore(bundle, store)) {
            assertArrayEquals(TestTables.weights(3, 5), s.rowOrNull(key));
            assertTrue(s.followedOffsets().isEmpty());
            assertArrayEquals(new long[] {RowVersion.NONE, RowVersion.NONE}, s.versions(List.of(key, FeatureKey.BIAS)),
                    "the bundle's own rows have no version");
            s.apply(Map.of(key, new Bundle.RowUpdate(updated, 17), FeatureKey.BIAS, new Bundle.RowUpdate(new float[] {9, 0, 0, 0, 0}, 3),
                    unversioned, new Bundle.RowUpdate(updated, 5)), Map.of(0, 42L, 1, 7L));
            s.apply(Map.of(unversioned, new Bundle.RowUpdate(updated, RowVersion.NONE)), Map.of(0, 43L));
        }
        try (Bundle s = Bundle.openStore(bundle, store)) {
            assertArrayEquals(updated, s.rowOrNull(key));
            assertEquals(9f, s.bias()[0]);
            assertArrayEquals(new long[] {17, 3, RowVersion.NONE}, s.versions(List.of(key, FeatureKey.BIAS, unversioned)),
                    "versions kept across a restart; an unversioned update clears its row's");
            assertEquals(Map.of(0, 43L, 1, 7L), s.followedOffsets());
        }
        try (Bundle b = Bundle.open(bundle)) {
            assertArrayEquals(TestTables.weights(3, 5), b.rowOrNull(key), "the bundle itself is untouched");
        }
    }

    @Test
    void aFollowedStoreTakesDenseChunkUpdatesAndScoresWithTheNewTower() throws Exception {
        ModelInfo deep = TestTables.deepInfo("deepfm", 4);
        Path deepSavepoint = TestTables.write(dir.resolve("deep-savepoint"), deep, 300);
        Path deepBundle = dir.resolve("deep-bundle");
        BundleWriter.write(deepSavepoint, deep, ModelCard.FeatureMapping.of("libffm", 24), deepBundle, QUIET, 1000);
        ModelShape shape = deep.shape();
        long[] keys = {TestTables.key(1), TestTables.key(2), TestTables.key(10)};
        float[] values = {1f, 0.5f, 2f};
        float[] chunk0 = new float[DenseChunks.WIDTH];
        java.util.Arrays.fill(chunk0, 0.25f);
        try (Bundle s = Bundle.openStore(deepBundle, dir.resolve("deep-store"))) {
            double before = LoadedModel.of(s).predict(keys, values);
            s.apply(Map.of(DenseChunks.key(0), new Bundle.RowUpdate(chunk0, 1)), Map.of(0, 1L));

            float[] expected = new float[shape.denseLayout().size()];
            shape.denseLayout().initialValues(TestTables.DENSE_SEED, 0, expected);
            System.arraycopy(chunk0, 0, expected, 0, DenseChunks.WIDTH);
            assertArrayEquals(expected, s.dense());
            double after = LoadedModel.of(s).predict(keys, values);
            assertTrue(Math.abs(after - before) > 1e-4, "the score moved with the tower: " + before + " -> " + after);
            assertEquals(byHand(shape, s, keys, values, expected), after, 1e-9);
        }
        try (Bundle s = Bundle.openStore(deepBundle, dir.resolve("deep-store"))) {
            assertEquals(0.25f, s.dense()[0], "kept across a restart");
        }
    }

    /** The trainer's batch model over the store's rows and {@code dense}, without LoadedModel. */
    private static double byHand(ModelShape shape, Bundle s, long[] keys, float[] values, float[] dense) {
        int width = shape.rowWidth();
        float[] table = new float[(keys.length + 1) * width];
        System.arraycopy(s.bias(), 0, table, 0, width);
        int[] slots = new int[keys.length];
        int[] fields = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            System.arraycopy(s.row(keys[i]), 0, table, (i + 1) * width, width);
            slots[i] = (i + 1) * width;
            fields[i] = FeatureKey.field(keys[i]);
        }
        double[] logit = new double[1];
        shape.batchModel().logits(new Examples(1, new int[] {0, keys.length}, slots, fields, values, 0), table, dense, logit);
        return 1 / (1 + Math.exp(-logit[0]));
    }

    private static Path copyOf(Path from, Path to) throws Exception {
        Files.createDirectories(to.resolve(Bundle.ROWS));
        try (var files = Files.list(from.resolve(Bundle.ROWS))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(Bundle.ROWS).resolve(f.getFileName()));
            }
        }
        Files.copy(from.resolve(Bundle.DENSE), to.resolve(Bundle.DENSE));
        Files.copy(from.resolve(ModelCard.FILE), to.resolve(ModelCard.FILE));
        return to;
    }
}
