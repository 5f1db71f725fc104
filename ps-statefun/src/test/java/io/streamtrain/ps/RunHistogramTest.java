package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.apache.flink.metrics.HistogramStatistics;
import org.junit.jupiter.api.Test;

class RunHistogramTest {
    @Test
    void quantilesAreNeverBelowTheTrueOneAndAtMostATenthOfAPercentAbove() {
        Random random = new Random(3);
        RunHistogram h = new RunHistogram();
        long[] values = new long[100_000];
        for (int i = 0; i < values.length; i++) {
            // mostly tens of ms, a tail of seconds: staleness with checkpoint stalls
            values[i] = random.nextInt(20) == 0 ? 500 + random.nextInt(50_000) : random.nextInt(80);
            h.update(values[i]);
        }
        Arrays.sort(values);
        HistogramStatistics stats = h.getStatistics();
        for (double q : new double[] {0.5, 0.9, 0.95, 0.99, 0.999}) {
            long truth = values[(int) Math.ceil(q * values.length) - 1];
            double reported = stats.getQuantile(q);
            assertTrue(reported >= truth && reported <= truth * 1.001 + 1, "q" + q + ": " + reported + " for " + truth);
        }
        assertEquals(values.length, h.getCount());
        long max = values[values.length - 1];
        assertTrue(stats.getMax() >= max && stats.getMax() <= max * 1.001, stats.getMax() + " for " + max);
        assertEquals(values[0], stats.getMin());
        double mean = Arrays.stream(values).average().orElseThrow();
        assertEquals(mean, stats.getMean(), mean * 0.001);
    }

    @Test
    void valuesBelow2048AreExact() {
        RunHistogram h = new RunHistogram();
        for (long v = 0; v < 2048; v++) {
            h.update(v);
        }
        HistogramStatistics stats = h.getStatistics();
        assertEquals(1023, stats.getQuantile(0.5));
        assertEquals(2027, stats.getQuantile(0.99)); // rank ceil(0.99 x 2048) = 2028
        assertEquals(2047, stats.getMax());
    }

    @Test
    void aRunIsNotForgottenLikeAWindow() {
        RunHistogram h = new RunHistogram();
        for (int i = 0; i < 50; i++) {
            h.update(900); // a stall early in the run
        }
        for (int i = 0; i < 4_000; i++) {
            h.update(10);
        }
        assertEquals(900, h.getStatistics().getQuantile(0.99), "50 of 4050 values are 900: above the 1 % tail");
        assertEquals(10, h.getStatistics().getQuantile(0.98));
    }

    @Test
    void aClockStepBackwardsCountsAsNoStaleness() {
        RunHistogram h = new RunHistogram();
        h.update(-5);
        assertEquals(0, h.getStatistics().getQuantile(1.0));
        assertEquals(1, h.getCount());
    }

    @Test
    void emptyHasNoQuantile() {
        assertTrue(Double.isNaN(new RunHistogram().getStatistics().getQuantile(0.99)));
        assertTrue(Double.isNaN(new RunHistogram().getStatistics().getMean()));
    }

    @Test
    void twoEncodedReadingsGiveTheValuesBetweenThem() throws Exception {
        RunHistogram h = new RunHistogram();
        for (int i = 0; i < 1_000; i++) {
            h.update(4_000); // the job's start: cold pulls
        }
        var before = RunHistogram.decode(h.encoded());
        for (int i = 0; i < 1_000; i++) {
            h.update(100 + i % 100);
        }
        var span = RunHistogram.decode(h.encoded());
        span.subtract(before);
        assertEquals(1_000, span.getTotalCount());
        assertEquals(199, span.getValueAtPercentile(100));
        assertEquals(149, span.getValueAtPercentile(50));
        assertEquals(2_000, RunHistogram.decode(h.encoded()).getTotalCount());
    }
}
