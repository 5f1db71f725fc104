package io.streamtrain.ps;

import java.io.Serializable;
import org.apache.flink.configuration.ReadableConfig;

/**
 * How many rows a PS subtask's {@link RowCache} holds: a fixed number when
 * {@link PsOptions#ROW_CACHE_ROWS} is set, otherwise what fits in
 * {@link PsOptions#ROW_CACHE_HEAP_FRACTION} of the heap of the JVM it runs in (so the TaskManager's
 * heap, known only where the PS opens, not where the job is built).
 *
 * @param rows a fixed number of rows, or null
 * @param heapFraction fraction of the maximum heap, used when {@code rows} is null
 */
public record RowCacheSize(Integer rows, double heapFraction) implements Serializable {
    public RowCacheSize {
        if (rows != null && rows < 0) {
            throw new IllegalArgumentException(PsOptions.ROW_CACHE_ROWS.key() + " must be >= 0, got " + rows);
        }
        if (!(heapFraction >= 0 && heapFraction < 1)) {
            throw new IllegalArgumentException(PsOptions.ROW_CACHE_HEAP_FRACTION.key() + " must be in [0, 1), got " + heapFraction);
        }
    }

    public static RowCacheSize from(ReadableConfig conf) {
        return new RowCacheSize(conf.getOptional(PsOptions.ROW_CACHE_ROWS).orElse(null), conf.get(PsOptions.ROW_CACHE_HEAP_FRACTION));
    }

    /** Rows of {@code weightWidth} weights and {@code slotWidth} optimizer slots, in a JVM of {@code maxHeapBytes}; 0 for no cache. */
    public int capacity(int weightWidth, int slotWidth, long maxHeapBytes) {
        if (rows != null) {
            return rows;
        }
        return RowCache.capacityFor((long) (heapFraction * maxHeapBytes), weightWidth, slotWidth);
    }
}
