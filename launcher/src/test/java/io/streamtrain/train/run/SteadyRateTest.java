package io.streamtrain.train.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SteadyRateTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void theCheckpointThatCommitsTheLastRecordsLateDoesNotCount() {
        SteadyRate rate = new SteadyRate();
        rate.advanced(10 * SECOND, 100_000, 900_000, 10 * SECOND, null);
        rate.advanced(20 * SECOND, 600_000, 400_000, 20 * SECOND, null);
        rate.advanced(30 * SECOND, 1_000_000, 0, 30 * SECOND, null); // trained by ~28 s, committed by the checkpoint at 30 s
        assertEquals(50_000, rate.rate(1_000_000, 30), 1e-6);
    }

    @Test
    void countsEveryIntervalThatEndedWithRecordsLeft() {
        SteadyRate rate = new SteadyRate();
        rate.advanced(SECOND, 10_000, 90_000, SECOND, null);
        rate.advanced(2 * SECOND, 60_000, 40_000, 2 * SECOND, null);
        rate.advanced(3 * SECOND, 95_000, 5_000, 3 * SECOND, null);
        rate.advanced(13 * SECOND, 100_000, 0, 13 * SECOND, null);
        assertEquals(42_500, rate.rate(100_000, 13), 1e-6);
    }

    @Test
    void withOneCheckpointBeforeTheEndTheRateRunsToTheLastOne() {
        SteadyRate rate = new SteadyRate();
        rate.advanced(2 * SECOND, 20_000, 80_000, 2 * SECOND, null);
        rate.advanced(4 * SECOND, 100_000, 0, 4 * SECOND, null);
        assertEquals(40_000, rate.rate(100_000, 4), 1e-6);
    }

    @Test
    void withoutTwoCheckpointsTheRateIsOverTheWholeRun() {
        SteadyRate rate = new SteadyRate();
        assertEquals(25_000, rate.rate(100_000, 4), 1e-6);
        rate.advanced(4 * SECOND, 100_000, 0, 4 * SECOND, null);
        assertEquals(25_000, rate.rate(100_000, 4), 1e-6);
    }

    @Test
    void aReadingBelowAnEarlierOneIsIgnoredSoTheRateIsNeverNegative() {
        SteadyRate rate = new SteadyRate();
        rate.advanced(SECOND, 30_000, 5_000, SECOND, null);     // ahead of what follows, as an earlier run's group offsets were
        rate.advanced(3 * SECOND, 1_100, 6_000, 3 * SECOND, null);
        rate.advanced(5 * SECOND, 7_000, 0, 5 * SECOND, null);
        assertEquals(7_000 / 5.0, rate.rate(7_000, 5), 1e-6);
    }

    @Test
    void cpuPerExampleIsReadOverTheSameSpanAsTheRate() {
        SteadyRate rate = new SteadyRate();
        rate.advanced(10 * SECOND, 100_000, 900_000, 50 * SECOND, null); // start-up's CPU left out
        rate.advanced(20 * SECOND, 600_000, 400_000, 65 * SECOND, null);
        rate.advanced(30 * SECOND, 1_000_000, 0, 90 * SECOND, null);     // the drained end left out
        assertEquals(15e6 / 500_000, rate.cpuMicrosPerExample(), 1e-9);
    }

    @Test
    void withoutTwoCheckpointsTheCpuPerExampleIsUnknown() {
        SteadyRate rate = new SteadyRate();
        rate.advanced(4 * SECOND, 100_000, 0, 3 * SECOND, null);
        assertEquals(Double.NaN, rate.cpuMicrosPerExample());
    }

    @Test
    void stalenessIsReadOverTheSameSpanAsTheRate() {
        SteadyRate rate = new SteadyRate();
        Histogram counts = new Histogram(3);
        counts.recordValueWithCount(4_000, 500);                       // the job's start: a cold PS
        rate.advanced(10 * SECOND, 100_000, 900_000, 10 * SECOND, counts.copy());
        counts.recordValueWithCount(120, 980);
        counts.recordValueWithCount(600, 20);                          // a checkpoint inside the span stays in
        rate.advanced(20 * SECOND, 600_000, 400_000, 20 * SECOND, counts.copy());
        counts.recordValueWithCount(9_000, 100);                       // the drained end left out
        rate.advanced(30 * SECOND, 1_000_000, 0, 30 * SECOND, counts.copy());
        assertEquals(120, rate.stalenessQuantile(0.5));
        assertEquals(600, rate.stalenessQuantile(0.99));
    }

    @Test
    void stalenessIsUnknownWithoutCountsAtBothEndsOrAfterARestart() {
        SteadyRate unread = new SteadyRate();
        unread.advanced(10 * SECOND, 100_000, 900_000, 10 * SECOND, null);
        Histogram counts = new Histogram(3);
        counts.recordValueWithCount(50, 10);
        unread.advanced(20 * SECOND, 600_000, 400_000, 20 * SECOND, counts);
        assertEquals(Double.NaN, unread.stalenessQuantile(0.99));

        SteadyRate restarted = new SteadyRate();
        Histogram before = new Histogram(3);
        before.recordValueWithCount(50, 1_000);
        restarted.advanced(10 * SECOND, 100_000, 900_000, 10 * SECOND, before);
        Histogram after = new Histogram(3);                           // a new attempt counts from 0
        after.recordValueWithCount(60, 400);
        restarted.advanced(20 * SECOND, 600_000, 400_000, 20 * SECOND, after);
        assertEquals(Double.NaN, restarted.stalenessQuantile(0.99));
    }
}
