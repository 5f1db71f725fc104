package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.apache.flink.metrics.HistogramStatistics;
import org.junit.jupiter.api.Test;

class RunHistogramTest {
    @Test
    void everyValueFallsInABucketWhoseBoundsHoldIt() {
        long previousUpper = -1;
        for (int b = 0; b < RunHistogram.EXACT + 20 * RunHistogram.SUB_BUCKETS; b++) {
            long upper = RunHistogram.upperBound(b);
            assertEquals(b, RunHistogram.bucketOf(previousUpper + 1), "the bucket's lowest value");
            assertEquals(b, RunHistogram.bucketOf(upper), "the bucket's highest value");
            previousUpper = upper;
        }
        assertEquals(RunHistogram.bucketOf(Long.MAX_VALUE), RunHistogram.bucketOf(Long.MAX_VALUE - 1));
    }

    @Test
    void quantilesAreNeverBelowTheTrueOneAndAtMostABucketAbove() {
        Random random = new Random(3);
        RunHistogram h = new RunHistogram();
        long[] values = new long[100_000];
        for (int i = 0; i < values.length; i++) {
            // mostly tens of ms, a tail of seconds: staleness with checkpoint stalls
            values[i] = random.nextInt(20) == 0 ? 500 + random.nextInt(5000) : random.nextInt(80);
            h.update(values[i]);
        }
        Arrays.sort(values);
        HistogramStatistics stats = h.getStatistics();
        for (double q : new double[] {0.5, 0.9, 0.95, 0.99, 0.999}) {
            long truth = values[(int) Math.ceil(q * values.length) - 1];
            double reported = stats.getQuantile(q);
            assertTrue(reported >= truth && reported <= truth * 1.0625 + 1, "q" + q + ": " + reported + " for " + truth);
        }
        assertEquals(values.length, h.getCount());
        assertEquals(values[values.length - 1], stats.getMax());
        assertEquals(values[0], stats.getMin());
        assertEquals(Arrays.stream(values).average().orElseThrow(), stats.getMean(), 1e-9);
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
    void emptyHasNoQuantile() {
        assertTrue(Double.isNaN(new RunHistogram().getStatistics().getQuantile(0.99)));
    }
}
