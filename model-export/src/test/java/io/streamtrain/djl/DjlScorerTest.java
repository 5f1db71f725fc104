package io.streamtrain.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import io.streamtrain.model.deep.DenseLayout;
import io.streamtrain.ps.row.DenseChunks;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parity: the DJL scorer over a bundle gives the trainer's own predictions (LoadedModel over the
 * checkpoint) within 1e-5, for every model kind; for the deep kinds also the trainer's math over the
 * bundle (what serve and SQL use), so the tower survives export.
 */
class DjlScorerTest {
    private static final int ROWS = 1500;
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @TempDir
    static Path dir;
    static Side fm;
    static Side lr;
    static Side deepfm;
    static Side wdl;
    static Side dcn;

    /** One model: its checkpoint scored by the trainer's code, its bundle by DJL. */
    record Side(LoadedModel trainer, Bundle bundle, DjlScorer djl) {}

    @BeforeAll
    static void start() throws Exception {
        fm = side("fm", TestTables.info("fm", 4));
        lr = side("lr", TestTables.info("lr", 1));
        deepfm = side("deepfm", TestTables.deepInfo("deepfm", 4));
        wdl = side("wdl", TestTables.deepInfo("wdl", 4));
        dcn = side("dcn", TestTables.deepInfo("dcn", 3));
    }

    private static Side side(String name, ModelInfo info) throws Exception {
        Path savepoint = TestTables.write(dir.resolve(name + "-savepoint"), info, ROWS);
        BundleWriter.write(savepoint, info, ModelCard.FeatureMapping.of("libffm", 24), dir.resolve(name), QUIET, 1000);
        Bundle bundle = Bundle.open(dir.resolve(name));
        return new Side(LoadedModel.load(savepoint, info), bundle, DjlScorer.open(bundle)); // one engine for the class
    }

    @AfterAll
    static void stop() {
        for (Side s : new Side[] {fm, lr, deepfm, wdl, dcn}) {
            if (s != null) {
                s.djl().close();
                s.bundle().close();
            }
        }
    }

    @Test
    void fmScoresEqualTheTrainersWithin1e5() {
        assertParity(fm, 7);
    }

    @Test
    void lrScoresEqualTheTrainersWithin1e5() {
        assertParity(lr, 8);
    }

    @Test
    void deepfmScoresEqualTheTrainersWithin1e5() {
        assertParity(deepfm, 9);
        assertBundleEqualsCheckpoint(deepfm, 19);
    }

    @Test
    void wdlScoresEqualTheTrainersWithin1e5() {
        assertParity(wdl, 10);
        assertBundleEqualsCheckpoint(wdl, 20);
    }

    @Test
    void dcnScoresEqualTheTrainersWithin1e5() {
        assertParity(dcn, 11);
        assertBundleEqualsCheckpoint(dcn, 21);
    }

    @Test
    void theBundleCarriesTheDenseTowerAsTrained() {
        DenseLayout layout = dcn.bundle().card().shape().denseLayout();
        float[] expected = new float[layout.size()];
        layout.initialValues(TestTables.DENSE_SEED, 0, expected);
        assertTrue(layout.size() > DenseChunks.WIDTH, "more than one chunk: " + layout.size());
        assertArrayEquals(expected, dcn.bundle().dense());
        assertEquals(2, dcn.bundle().card().crossLayers());
    }

    /** The trainer's math over the bundle (serve, SQL) equals it over the checkpoint. */
    private static void assertBundleEqualsCheckpoint(Side side, long seed) {
        LoadedModel overBundle = LoadedModel.of(side.bundle());
        Random random = new Random(seed);
        for (int n = 0; n < 200; n++) {
            ExampleRows e = ExampleRows.of(features(random));
            assertEquals(side.trainer().predict(e.keys(), e.values()), overBundle.predict(e.keys(), e.values()), 1e-6, "example " + n);
        }
    }

    private static void assertParity(Side side, long seed) {
        Random random = new Random(seed);
        double lowest = 1;
        double highest = 0;
        for (int n = 0; n < 300; n++) {
            ExampleRows e = ExampleRows.of(features(random));
            double expected = side.trainer().predict(e.keys(), e.values());
            double got = side.djl().predict(e);
            assertEquals(expected, got, 1e-5, "example " + n + ": " + java.util.Arrays.toString(e.keys()));
            lowest = Math.min(lowest, expected);
            highest = Math.max(highest, expected);
        }
        assertTrue(highest - lowest > 0.05, "the sample spans different scores: " + lowest + " .. " + highest);
    }

    @Test
    void featuresWithoutRowsScoreAsTheZeroVector() {
        long unseen = FeatureKey.of(9, 123_456);
        double biasOnly = 1 / (1 + Math.exp(-fm.bundle().bias()[0]));
        assertEquals(biasOnly, fm.djl().predict(new ExampleRows(new long[] {unseen}, new float[] {2f})), 1e-6);
        assertEquals(biasOnly, fm.djl().predict(new ExampleRows(new long[0], new float[0])), 1e-6, "no features at all");
    }

    @Test
    void aRawLineThroughTheCardsMappingScoresLikeTraining() {
        ModelCard.FeatureMapping mapping = fm.bundle().card().mapping();
        long a = TestTables.key(21);
        long b = TestTables.key(22);
        String line = String.format(Locale.ROOT, "0 %d:%d:1 %d:%d:0.25", FeatureKey.field(a), FeatureKey.id(a), FeatureKey.field(b), FeatureKey.id(b));
        ParseResult parsed = LineFormat.fromName(mapping.inputFormat())
                .parser(ParseOptions.defaults("test").withHashBits(mapping.hashBits())).parse(line, 1);
        Example e = ((ParseResult.Ok) parsed).example();
        assertEquals(fm.trainer().predict(e), fm.djl().predict(e), 1e-5);
        assertTrue(fm.djl().engine().startsWith("PyTorch"), fm.djl().engine());
    }

    @Test
    void scoreCommandWithABundleWritesTheTrainersProbabilities() throws Exception {
        Random random = new Random(3);
        List<String> lines = new ArrayList<>();
        List<Double> expected = new ArrayList<>();
        while (lines.size() < 40) {
            ExampleRows e = ExampleRows.of(features(random));
            if (e.keys().length == 0) {
                continue; // a line needs a feature to parse
            }
            StringBuilder line = new StringBuilder("1");
            for (int i = 0; i < e.keys().length; i++) {
                line.append(String.format(Locale.ROOT, " %d:%d:%s", FeatureKey.field(e.keys()[i]), FeatureKey.id(e.keys()[i]), Float.toString(e.values()[i])));
            }
            lines.add(line.toString());
            expected.add(fm.trainer().predict(e.keys(), e.values()));
        }
        lines.add("1 not:a:feature:line");
        Path input = dir.resolve("score-input.libffm");
        Path output = dir.resolve("score-output.txt");
        java.nio.file.Files.write(input, lines);
        int exit = new picocli.CommandLine(new io.streamtrain.export.ScoreCommand())
                .execute("--bundle", dir.resolve("fm").toString(), "--file", input.toString(), "--out", output.toString());
        assertEquals(0, exit);
        List<String> scores = java.nio.file.Files.readAllLines(output);
        assertEquals(lines.size(), scores.size());
        for (int n = 0; n < expected.size(); n++) {
            assertEquals(expected.get(n), Double.parseDouble(scores.get(n)), 1e-5, "line " + (n + 1));
        }
        assertEquals("NaN", scores.get(expected.size()), "a bad line scores NaN");
    }

    /** Known rows (some twice: ExampleRows merges them as training does) and never-seen ones. */
    private static List<Feature> features(Random random) {
        int n = random.nextInt(12);
        List<Feature> features = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long key = random.nextInt(5) == 0 ? FeatureKey.of(11, random.nextInt(1 << 20)) : TestTables.key(random.nextInt(40));
            features.add(new Feature(FeatureKey.field(key), FeatureKey.id(key), random.nextFloat() * 3 - 1));
        }
        return features;
    }
}
