package io.streamtrain.ps;

import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;

/**
 * A histogram of every value since the subtask started, not of a recent window: what a run's
 * summary reports as its staleness p99. Flink's {@code DescriptiveStatisticsHistogram} keeps the
 * last N values only, and a p99 of the last 2048 pushes at the end of a run said little about the
 * run: with checkpoints every second or two, whether that window held a checkpoint's stall was
 * chance.
 *
 * <p>Values are counted in buckets: exact below {@value #EXACT}, then {@value #SUB_BUCKETS} per
 * doubling (under 6.25 % wide), so memory is fixed. A quantile is its bucket's upper bound, never
 * less than the true value. {@link HistogramStatistics#getValues} is empty: the values are not kept.
 */
public final class RunHistogram implements Histogram {
    static final int EXACT = 1024;
    static final int SUB_BUCKETS = 16;
    private static final int EXACT_BITS = Integer.numberOfTrailingZeros(EXACT);
    private static final int SUB_BITS = Integer.numberOfTrailingZeros(SUB_BUCKETS);

    private final long[] counts = new long[EXACT + (64 - EXACT_BITS) * SUB_BUCKETS];
    private long count;
    private long sum;
    private double sumOfSquares;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    @Override
    public void update(long value) {
        long v = Math.max(0, value); // a clock step backwards is not negative staleness
        counts[bucketOf(v)]++;
        count++;
        sum += v;
        sumOfSquares += (double) v * v;
        min = Math.min(min, v);
        max = Math.max(max, v);
    }

    @Override
    public long getCount() {
        return count;
    }

    /** Read by the metric threads while the task thread updates: the quantiles rank within the copied counts. */
    @Override
    public HistogramStatistics getStatistics() {
        long[] copy = counts.clone();
        long total = 0;
        for (long c : copy) {
            total += c;
        }
        return new Statistics(copy, total, sum, sumOfSquares, min, max);
    }

    static int bucketOf(long v) {
        if (v < EXACT) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v); // >= EXACT_BITS
        int sub = (int) (v >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
        return EXACT + (exponent - EXACT_BITS) * SUB_BUCKETS + sub;
    }

    /** The largest value bucket {@code b} holds. */
    static long upperBound(int b) {
        if (b < EXACT) {
            return b;
        }
        int exponent = (b - EXACT) / SUB_BUCKETS + EXACT_BITS;
        int sub = (b - EXACT) % SUB_BUCKETS;
        long width = 1L << (exponent - SUB_BITS);
        return (1L << exponent) + (sub + 1) * width - 1;
    }

    private static final class Statistics extends HistogramStatistics {
        private final long[] counts;
        private final long count;
        private final long sum;
        private final double sumOfSquares;
        private final long min;
        private final long max;

        Statistics(long[] counts, long count, long sum, double sumOfSquares, long min, long max) {
            this.counts = counts;
            this.count = count;
            this.sum = sum;
            this.sumOfSquares = sumOfSquares;
            this.min = min;
            this.max = max;
        }

        /** The upper bound of the bucket holding the value of rank ceil(q × count), capped at the maximum seen. */
        @Override
        public double getQuantile(double quantile) {
            if (count == 0) {
                return Double.NaN;
            }
            long rank = Math.max(1, (long) Math.ceil(quantile * count));
            long seen = 0;
            for (int b = 0; b < counts.length; b++) {
                seen += counts[b];
                if (seen >= rank) {
                    return Math.min(upperBound(b), max);
                }
            }
            return max;
        }

        @Override
        public long[] getValues() {
            return new long[0];
        }

        @Override
        public int size() {
            return (int) Math.min(Integer.MAX_VALUE, count);
        }

        @Override
        public double getMean() {
            return count == 0 ? Double.NaN : (double) sum / count;
        }

        @Override
        public double getStdDev() {
            if (count < 2) {
                return 0;
            }
            double mean = getMean();
            return Math.sqrt(Math.max(0, (sumOfSquares - count * mean * mean) / (count - 1)));
        }

        @Override
        public long getMax() {
            return count == 0 ? 0 : max;
        }

        @Override
        public long getMin() {
            return count == 0 ? 0 : min;
        }
    }
}
