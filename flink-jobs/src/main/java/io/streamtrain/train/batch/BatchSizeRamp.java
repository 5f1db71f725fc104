package io.streamtrain.train.batch;

import java.io.Serializable;

/**
 * The size of a partition's mini-batches: the first has {@code initial} examples, each later one
 * a sixteenth more (rounded up), until {@code full}. A fresh model so takes many small steps while
 * its gradients are largest and least reliable: a small log of a few thousand rows would be two or
 * three full batches, two or three steps. The full size is reached after about 16 × {@code full}
 * examples, so a long stream trains at full throughput. Integer arithmetic on the batch's sequence
 * number only, so a replay cuts the same batches on any JVM.
 */
public record BatchSizeRamp(int initial, int full) implements Serializable {
    private static final int GROWTH_DIVISOR = 16;

    public BatchSizeRamp {
        if (full < 1 || initial < 1) {
            throw new IllegalArgumentException("batch sizes must be >= 1, got initial " + initial + ", full " + full);
        }
    }

    /** A constant batch size. */
    public static BatchSizeRamp constant(int size) {
        return new BatchSizeRamp(size, size);
    }

    /** The first sequence number whose batch has the full size: from there on no need to ramp. */
    public long firstFullSeq() {
        long seq = 0;
        for (long size = initial; size < full; seq++) {
            size += (size + GROWTH_DIVISOR - 1) / GROWTH_DIVISOR;
        }
        return seq;
    }

    /** Examples in the batch with sequence number {@code seq} (0 for a partition's first). */
    public int sizeOf(long seq) {
        long size = initial;
        for (long s = 0; s < seq && size < full; s++) {
            size += (size + GROWTH_DIVISOR - 1) / GROWTH_DIVISOR;
        }
        return (int) Math.min(size, full);
    }
}
