package io.streamtrain.train.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ProgressiveValidationTest {
    @Test
    void aucAndLoglossMatchExactComputationOverTheWindow() {
        Random r = new Random(1);
        int window = 500;
        ProgressiveValidation pv = new ProgressiveValidation(window);
        double[] p = new double[2000];
        boolean[] y = new boolean[2000];
        for (int i = 0; i < p.length; i++) {
            y[i] = r.nextDouble() < 0.3;
            p[i] = Math.min(0.999, Math.max(0.001, (y[i] ? 0.6 : 0.4) + r.nextGaussian() * 0.2));
            pv.add(p[i], y[i]);
        }
        int from = p.length - window;
        double pairs = 0;
        double wins = 0;
        double loss = 0;
        for (int i = from; i < p.length; i++) {
            loss += y[i] ? -Math.log(p[i]) : -Math.log(1 - p[i]);
            for (int j = from; j < p.length; j++) {
                if (y[i] && !y[j]) {
                    pairs++;
                    wins += p[i] > p[j] ? 1 : p[i] == p[j] ? 0.5 : 0;
                }
            }
        }
        assertEquals(window, pv.size());
        assertEquals(loss / window, pv.logloss(), 1e-9);
        assertEquals(wins / pairs, pv.auc(), 2e-3, "binned AUC is within bin resolution of the exact one");
    }

    @Test
    void aucIsUndefinedWithOneClass() {
        ProgressiveValidation pv = new ProgressiveValidation(10);
        pv.add(0.3, true);
        assertEquals(Double.NaN, pv.auc());
    }

    @Test
    void baseLoglossIsTheConstantPredictorsAtTheWindowsPositiveRate() {
        ProgressiveValidation pv = new ProgressiveValidation(4);
        pv.add(0.9, true); // slides out of the window below
        for (int i = 0; i < 3; i++) {
            pv.add(0.5, false);
        }
        pv.add(0.5, true);
        assertEquals(1, pv.positives());
        assertEquals(-(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75)), pv.baseLogloss(), 1e-12);
        assertEquals(Math.log(2), pv.logloss(), 1e-12, "predicting 0.5 throughout");
        assertTrue(!ProgressiveValidation.worseThanBaseRate(pv.logloss(), pv.baseLogloss()).isEmpty(), "0.69 > 0.56: worse than the base rate");
        assertTrue(ProgressiveValidation.worseThanBaseRate(0.5, pv.baseLogloss()).isEmpty());
        assertEquals(0.0, ProgressiveValidation.baseLogloss(0, 10), "one class only: a constant is perfect");
        assertTrue(Double.isNaN(ProgressiveValidation.baseLogloss(-1, 10)), "unknown positives");
    }
}
