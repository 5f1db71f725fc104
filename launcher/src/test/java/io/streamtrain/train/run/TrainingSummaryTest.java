package io.streamtrain.train.run;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TrainingSummaryTest {
    @Test
    void lineCarriesTheCreditWaitsBetweenDeadLettersAndSeconds() {
        String line = new TrainingSummary(1000, 50.0, 0.75, 0.5, 0.52, 3, 0, 120, 40, 2, 4500, 7, 12.5, "file:/tmp/chk-3", 11, 2048, 300.0, 90, 210).line();
        assertTrue(line.startsWith("summary: records=1000 examples_per_s=50 "), line);
        assertTrue(line.contains(" restarts=0 staleness_p99_ms=120 staleness_p50_ms=40 steady_staleness_p99_ms=210 steady_staleness_p50_ms=90 dead_letters=2 "), line);
        assertTrue(line.contains(" dead_letters=2 credit_wait_ms=4500 credit_waits_run_out=7 seconds=12.5 "), line);
        assertTrue(line.endsWith(" checkpoint=file:/tmp/chk-3"), line);
    }

    @Test
    void warnsOnlyWhenTheWindowLoglossIsAboveTheBaseRatePredictors() {
        TrainingSummary good = new TrainingSummary(1000, 50.0, 0.75, 0.5, 0.52, 3, 0, 120, 40, 2, 4500, 7, 12.5, "c", 11, 2048, 300.0, 90, 210);
        assertTrue(good.line().contains(" window_logloss=0.5000 base_logloss=0.5200 "), good.line());
        assertTrue(good.warning().isEmpty(), good.warning());
        TrainingSummary diverged = new TrainingSummary(1000, 50.0, 0.46, 4.37, 0.52, 3, 0, 120, 40, 2, 4500, 7, 12.5, "c", 11, 2048, 300.0, 90, 210);
        assertTrue(diverged.warning().startsWith("warning: window logloss 4.3700 is above the base-rate predictor's 0.5200"), diverged.warning());
    }
}
