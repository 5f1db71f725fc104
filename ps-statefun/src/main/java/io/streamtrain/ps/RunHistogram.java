package io.streamtrain.ps;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;
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
 *
 * <p>{@link #encoded} gives the counts themselves, so that a reader can take the difference of two
 * readings: the staleness of a span of the run (the bench's steady span, without the job's start).
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

    /**
     * The counts so far as text, HdrHistogram's compressed encoding in Base64 (a gauge's value over
     * Flink's REST API); {@link #decode} reads it back.
     */
    public String encoded() {
        AbstractHistogram copy = values.copy();
        ByteBuffer buffer = ByteBuffer.allocate(copy.getNeededByteBufferCapacity());
        int length = copy.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /** The counts of an {@link #encoded} reading. */
    public static org.HdrHistogram.Histogram decode(String encoded) throws DataFormatException {
        org.HdrHistogram.Histogram h = org.HdrHistogram.Histogram.decodeFromCompressedByteBuffer(
                ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 0);
        h.setAutoResize(true);
        return h;
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
