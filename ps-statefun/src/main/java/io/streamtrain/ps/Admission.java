package io.streamtrain.ps;

import io.streamtrain.schema.FeatureKey;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.Counter;

/**
 * Feature admission ({@link PsOptions#MIN_FREQUENCY}): a feature gets a row only once it has
 * occurred that many times. Until then only a pending counter is kept ({@link PsState#pending}), a
 * pull gets zeros for it and a push's gradient for it is dropped. The bias is always admitted.
 */
final class Admission {
    /** {@link #admit}'s answer for a feature that stays pending. */
    static final long PENDING = -1;

    private final int minFrequency;
    private final MapState<Long, Integer> pending;
    private final Counter pendingCreated;

    /** @param pending the pending counters, under the current key group */
    Admission(int minFrequency, MapState<Long, Integer> pending, Counter pendingCreated) {
        this.minFrequency = Math.max(1, minFrequency);
        this.pending = pending;
        this.pendingCreated = pendingCreated;
    }

    /** Whether {@code key} gets a row the first time it is seen (so a pull may create it). */
    boolean onFirstSight(long key) {
        return minFrequency <= 1 || key == FeatureKey.BIAS;
    }

    /**
     * Counts {@code occurrences} more of {@code key}, which has no row: returns how often it
     * occurred before them if it is admitted now (its pending counter then goes), or
     * {@link #PENDING}.
     */
    long admit(long key, int occurrences) throws Exception {
        if (onFirstSight(key)) {
            return 0;
        }
        Integer before = pending.get(key);
        int total = (before == null ? 0 : before) + occurrences;
        if (total < minFrequency) {
            if (before == null) {
                pendingCreated.inc();
            }
            pending.put(key, total);
            return PENDING;
        }
        pending.remove(key);
        return total - occurrences;
    }
}
