package io.streamtrain.ps;

import java.util.HashMap;
import java.util.Map;

/**
 * The last batch sequence the PS applied per (key group, source partition), on the heap in front of
 * its keyed state ({@link PsState#appliedBatches}). Every push checks and advances it; read from and
 * written to RocksDB each time, that would be two RocksDB calls per push, 9 % of the PS thread in a
 * profile (docs/decisions/0007-heap-state-written-before-barrier.md). The state is read once per pair, on
 * its first push after a start or restore, and the pairs that advanced are written back with the
 * changed rows, before each checkpoint barrier, so a checkpoint holds exactly what a write per push
 * would have left.
 */
final class AppliedBatches {
    /** Reads the stored sequence of a source partition under the current key group, or null. */
    @FunctionalInterface
    interface Stored {
        Long read(int sourcePartition) throws Exception;
    }

    /** Writes a source partition's sequence under key group {@code group}. */
    @FunctionalInterface
    interface WriteBack {
        void write(int group, int sourcePartition, long batchSeq) throws Exception;
    }

    private static final long NONE = -1;

    private static final class Last {
        final int group;
        final int sourcePartition;
        long batchSeq;
        boolean changed;

        Last(int group, int sourcePartition, long batchSeq) {
            this.group = group;
            this.sourcePartition = sourcePartition;
            this.batchSeq = batchSeq;
        }
    }

    private final Map<Long, Last> entries = new HashMap<>();
    private final Stored stored;

    /** @param stored reads a pair's sequence from state, under the current key group */
    AppliedBatches(Stored stored) {
        this.stored = stored;
    }

    /**
     * Whether {@code batchSeq} of {@code sourcePartition} was applied in {@code group} already. The
     * current key must be {@code group}'s: a pair seen for the first time is read from state.
     */
    boolean applied(int group, int sourcePartition, long batchSeq) throws Exception {
        Last last = entries.get(pair(group, sourcePartition));
        if (last == null) {
            Long seq = stored.read(sourcePartition);
            last = new Last(group, sourcePartition, seq == null ? NONE : seq);
            entries.put(pair(group, sourcePartition), last);
        }
        return batchSeq <= last.batchSeq;
    }

    /** Records that {@code batchSeq} was applied; call after {@link #applied} for the same pair. */
    void advance(int group, int sourcePartition, long batchSeq) {
        Last last = entries.get(pair(group, sourcePartition));
        last.batchSeq = batchSeq;
        last.changed = true;
    }

    /** Writes every pair that advanced since the last write-back. */
    void writeBack(WriteBack to) throws Exception {
        for (Last last : entries.values()) {
            if (last.changed) {
                to.write(last.group, last.sourcePartition, last.batchSeq);
                last.changed = false;
            }
        }
    }

    private static long pair(int group, int sourcePartition) {
        return ((long) group << 32) | (sourcePartition & 0xffffffffL);
    }
}
