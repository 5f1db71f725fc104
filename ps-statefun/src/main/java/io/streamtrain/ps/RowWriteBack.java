package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyGroupRange;

/**
 * Writes rows held on the heap to RocksDB, each under its own key group: the row cache's changed
 * rows once they go quiet (between pushes), a changed row the cache evicts, all of them at the end
 * of input, and the changed rows of the checkpoint a subtask restores from.
 */
final class RowWriteBack {
    private final MapState<Long, EmbeddingRow> stored;
    private final KeyGroupScope scope;
    private final KeyGroups keyGroups;
    private final Counter rowsWrittenBack;
    private final int width;
    private final int slotWidth;
    /**
     * After how long without a change a changed row is written back between barriers (looked for
     * every half of it): a row that went quiet is unlikely to change again before the barrier, and
     * writing it now in a small batch keeps it out of the checkpoint's copy, during which pushes wait.
     */
    private final long quietMs;
    private long lastSweepAt;
    /** Row objects reused by each write-back, one per row of the largest key group written back. */
    private final List<EmbeddingRow> rowBuffers = new ArrayList<>();
    private final RowBatch batch = new RowBatch();

    RowWriteBack(MapState<Long, EmbeddingRow> stored, KeyGroupScope scope, Counter rowsWrittenBack,
                 int width, int slotWidth, long quietMs) {
        this.stored = stored;
        this.scope = scope;
        this.keyGroups = scope.keyGroups();
        this.rowsWrittenBack = rowsWrittenBack;
        this.width = width;
        this.slotWidth = slotWidth;
        this.quietMs = Math.max(1, quietMs);
    }

    /** A changed row that leaves the cache for a new one: written now (the cache's {@link RowCache.WriteBack}). */
    void evicted(long key, EmbeddingRow row) throws Exception {
        rowsWrittenBack.inc();
        scope.run(keyGroups.bucketOf(key), () -> stored.put(key, row));
    }

    /** Writes back the cache's changed rows that went quiet by {@code now}, at most every half quiet time. */
    void sweep(RowCache cache, long now) throws Exception {
        if (now - lastSweepAt >= quietMs / 2) {
            lastSweepAt = now;
            long[] quiet = cache.changedKeys(now - quietMs);
            if (quiet.length > 0) {
                write(cache, quiet);
            }
        }
    }

    /** Writes back every changed row of the cache: at the end of input. */
    void all(RowCache cache) throws Exception {
        if (cache.changedCount() > 0) {
            write(cache, cache.changedKeys(Long.MAX_VALUE));
        }
    }

    /**
     * Writes the rows of a restored checkpoint's {@link ChangedRows} values that belong to the key
     * groups {@code owned} (one write batch per key group); returns how many.
     */
    long restore(List<byte[]> values, KeyGroupRange owned) throws Exception {
        Map<Integer, RowBatch> byGroup = new HashMap<>();
        for (byte[] value : values) {
            ChangedRows.read(value, (key, row) -> {
                int group = keyGroups.bucketOf(key);
                if (owned.contains(group)) {
                    byGroup.computeIfAbsent(group, g -> new RowBatch()).add(key, row);
                }
            });
        }
        long restored = 0;
        for (Map.Entry<Integer, RowBatch> e : byGroup.entrySet()) {
            scope.run(e.getKey(), () -> stored.putAll(e.getValue()));
            restored += e.getValue().size();
        }
        return restored;
    }

    /**
     * Writes the cached rows of {@code keys} to RocksDB, each under its own key group, in RocksDB's
     * key order (one write batch per key group; sorted keys go into the memtable next to each
     * other), and marks them written.
     */
    private void write(RowCache cache, long[] keys) throws Exception {
        int groups = keyGroups.maxParallelism();
        int[] start = new int[groups + 1];
        for (long key : keys) {
            start[keyGroups.bucketOf(key) + 1]++;
        }
        for (int g = 0; g < groups; g++) {
            start[g + 1] += start[g];
        }
        long[] byGroup = new long[keys.length];
        int[] next = Arrays.copyOf(start, groups);
        for (long key : keys) {
            // Sign bit flipped: RocksDB compares the big-endian key bytes unsigned.
            byGroup[next[keyGroups.bucketOf(key)]++] = key ^ Long.MIN_VALUE;
        }
        for (int g = 0; g < groups; g++) {
            if (start[g] == start[g + 1]) {
                continue;
            }
            Arrays.sort(byGroup, start[g], start[g + 1]);
            for (int i = start[g]; i < start[g + 1]; i++) {
                long key = byGroup[i] ^ Long.MIN_VALUE;
                int place = cache.find(key);
                batch.add(key, cache.read(place, rowBuffer(i - start[g])));
                cache.written(place);
            }
            scope.run(g, () -> stored.putAll(batch));
            batch.clear();
        }
        rowsWrittenBack.inc(keys.length);
    }

    private EmbeddingRow rowBuffer(int i) {
        if (i == rowBuffers.size()) {
            rowBuffers.add(new EmbeddingRow(new float[width], new float[slotWidth]));
        }
        return rowBuffers.get(i);
    }
}
