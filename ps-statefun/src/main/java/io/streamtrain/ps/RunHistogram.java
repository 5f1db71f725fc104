package io.streamtrain.ps;

import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.ConcurrentHistogram;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;

/**
 * A histogram of every value since the subtask started, not of a recent window: what a run's
 * summary reports as its staleness p99. Flink's {@code DescriptiveStatisticsHistogram} keeps the
 * last N values only, and a p99 of the last 2048 pushes at the end of a run said little about the
 * run: whether that window held a checkpoint's stall was chance.
 *
 * <p>An HdrHistogram of 3 significant digits: values are exact below 2048 and within 0.1 % above,
 * in fixed memory, and a quantile is the highest value of its bucket, never below the true one. The
 * task thread records while the metric threads read: a {@link ConcurrentHistogram}, copied for each
 * read. {@link HistogramStatistics#getValues} is empty: the values are not kept.
 */
public final class RunHistogram implements Histogram {
    private static final int SIGNIFICANT_DIGITS = 3;

    private final ConcurrentHistogram values = new ConcurrentHistogram(SIGNIFICANT_DIGITS);

    @Override
    public void update(long value) {
        values.recordValue(Math.max(0, value)); // a clock step backwards is not negative staleness
    }

    @Override
    public long getCount() {
        return values.getTotalCount();
    }

    @Override
    public HistogramStatistics getStatistics() {
        return new Statistics(values.copy());
    }

    private static final class Statistics extends HistogramStatistics {
        private final AbstractHistogram values;

        Statistics(AbstractHistogram values) {
            this.values = values;
        }

        /** The value of rank ceil(q × count); NaN when empty. */
        @Override
        public double getQuantile(double quantile) {
            return values.getTotalCount() == 0 ? Double.NaN : values.getValueAtPercentile(100 * quantile);
        }

        @Override
        public long[] getValues() {
            return new long[0];
        }

        @Override
        public int size() {
            return (int) Math.min(Integer.MAX_VALUE, values.getTotalCount());
        }

        @Override
        public double getMean() {
            return values.getTotalCount() == 0 ? Double.NaN : values.getMean();
        }

        @Override
        public double getStdDev() {
            return values.getStdDeviation();
        }

        @Override
        public long getMax() {
            return values.getMaxValue();
        }

        @Override
        public long getMin() {
            return values.getTotalCount() == 0 ? 0 : values.getMinValue();
        }
    }
}
