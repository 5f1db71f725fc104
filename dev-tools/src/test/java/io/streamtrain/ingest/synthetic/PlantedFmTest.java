package io.streamtrain.ingest.synthetic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlantedFmTest {
    @TempDir
    Path dir;

    @Test
    void deterministicGivenTheSeed() throws Exception {
        PlantedFm a = new PlantedFm(42);
        PlantedFm b = new PlantedFm(42);
        a.writeTruth(dir.resolve("a.json"));
        b.writeTruth(dir.resolve("b.json"));
        assertArrayEquals(Files.readAllBytes(dir.resolve("a.json")), Files.readAllBytes(dir.resolve("b.json")));
        new PlantedFm(43).writeTruth(dir.resolve("c.json"));
        assertFalse(Arrays.equals(Files.readAllBytes(dir.resolve("a.json")), Files.readAllBytes(dir.resolve("c.json"))));
        Random ra = new Random(7);
        Random rb = new Random(7);
        for (int i = 0; i < 100; i++) {
            assertEquals(a.next(ra), b.next(rb));
        }
    }

    @Test
    void plantedAucAndPositiveRateAreInTheTargetBand() {
        for (long seed : new long[] {1, 2, 3}) {
            PlantedFm fm = new PlantedFm(seed);
            Random r = new Random(seed + 100);
            int n = 20_000;
            double[] scores = new double[n];
            float[] labels = new float[n];
            double positives = 0;
            for (int i = 0; i < n; i++) {
                Example e = fm.next(r);
                assertEquals(PlantedFm.DEFAULT_FIELDS, e.getFeatures().size());
                scores[i] = fm.predict(e);
                labels[i] = e.getLabel();
                positives += labels[i];
            }
            double auc = Auc.of(scores, labels);
            double rate = positives / n;
            assertTrue(auc >= 0.75 && auc <= 0.85, "seed " + seed + ": planted AUC " + auc);
            assertTrue(rate >= 0.2 && rate <= 0.4, "seed " + seed + ": positive rate " + rate);
        }
    }

    @Test
    void truthRoundTripsAndPredictsTheSame() throws Exception {
        PlantedFm fm = new PlantedFm(5, 4, 50, 1.1, 3);
        Path file = dir.resolve("truth.json");
        fm.writeTruth(file);
        PlantedFm read = PlantedFm.readTruth(file);
        assertEquals(fm.bias(), read.bias());
        Random r1 = new Random(9);
        Random r2 = new Random(9);
        for (int i = 0; i < 200; i++) {
            Example e = fm.next(r1);
            assertEquals(e, read.next(r2));
            assertEquals(fm.predict(e), read.predict(e));
        }
    }

    @Test
    void predictIsTheSecondOrderFmFormula() {
        PlantedFm fm = new PlantedFm(11, 3, 20, 1.1, 2);
        List<Feature> features = List.of(new Feature(0, 3L, 1f), new Feature(1, 0L, 2f), new Feature(2, 19L, 0.5f),
                new Feature(7, 1L, 1f), new Feature(1, 999L, 1f)); // the last two are unknown: weight 0
        Example e = new Example("x", java.time.Instant.EPOCH, 1f, features, List.of(), 1f);
        double logit = fm.bias();
        List<Feature> known = features.subList(0, 3);
        for (int i = 0; i < known.size(); i++) {
            Feature fi = known.get(i);
            logit += fm.weight(fi.getField(), (int) fi.getId()) * fi.getValue();
            for (int j = i + 1; j < known.size(); j++) {
                Feature fj = known.get(j);
                float[] vi = fm.factor(fi.getField(), (int) fi.getId());
                float[] vj = fm.factor(fj.getField(), (int) fj.getId());
                double dot = 0;
                for (int k = 0; k < vi.length; k++) {
                    dot += (double) vi[k] * vj[k];
                }
                logit += dot * fi.getValue() * fj.getValue();
            }
        }
        assertEquals(1 / (1 + Math.exp(-logit)), fm.predict(e), 1e-9);
    }

    @Test
    void aucHandlesTies() {
        assertEquals(0.5, Auc.of(new double[] {1, 1, 1, 1}, new float[] {0, 1, 0, 1}), 1e-12);
        assertEquals(1.0, Auc.of(new double[] {0.1, 0.2, 0.8, 0.9}, new float[] {0, 0, 1, 1}), 1e-12);
        assertEquals(0.875, Auc.of(new double[] {0.1, 0.5, 0.5, 0.9}, new float[] {0, 0, 1, 1}), 1e-12);
    }
}
