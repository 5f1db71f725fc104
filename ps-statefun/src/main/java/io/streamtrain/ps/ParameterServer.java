package io.streamtrain.ps;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.message.PushApplied;
import io.streamtrain.ps.message.RowChanged;
import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.schema.FeatureKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.flink.util.function.ThrowingRunnable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parameter server: keyed by PS key group, it answers pulls (input 1) with the current rows and
 * applies gradient pushes read back from the feedback topic (input 2). Each push carries its
 * mini-batch's (source partition, sequence number); the PS remembers the last one applied per
 * partition and key group and drops replays, so every batch changes every row at most once. Every
 * push handled, applied or dropped, is announced on {@link #APPLIED} for the batcher's flow control
 * (coalesced per batch over a 2 ms window by {@link AppliedNotices}).
 *
 * <p>Changed rows stay in the {@link RowCache} until they go quiet (then they are written to
 * RocksDB in sorted batches between pushes) or leave it. A checkpoint does not wait for them to
 * reach RocksDB: it copies the rows still changed into operator state ({@link #changedRowsSnapshot},
 * {@link ChangedRows}), which a restore writes back ({@link #restoreChangedRows}) and the exporter
 * reads over the stored rows. Writing them to RocksDB before each barrier had held up every push
 * for 40-60 ms, and hot rows were written once a second; the copy takes 10-25 ms
 * (docs/benchmarks.md, 2026-12-07). The last batch applied per partition ({@link AppliedBatches})
 * reaches RocksDB before each barrier ({@link #writeBackAppliedBatches}). Writing a row under its
 * own key group needs the operator's key context: run this function in a {@link ParameterServerOperator}.
 */
public class ParameterServer extends KeyedCoProcessFunction<Integer, PullRequest, Push, PulledRows> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ParameterServer.class);
    private static final long REPORT_EVERY_MS = 1000;
    /** The window over which applied notices are coalesced, one per batch (AppliedNotices). */
    private static final long NOTICE_FLUSH_MS = 2;

    /** Staleness quantiles, about once a second while pushes arrive (for the metrics topic). */
    public static final OutputTag<StalenessReport> REPORTS = new OutputTag<>("ps-reports") {};

    /** Notices of pushes handled, one per batch and flush window: lets the batcher bound the batches in flight (BatchCredits). */
    public static final OutputTag<PushApplied> APPLIED = new OutputTag<>("push-applied") {};

    /** Every row a push changed, when the job publishes model updates (serving follows them). */
    public static final OutputTag<RowChanged> ROWS_CHANGED = new OutputTag<>("rows-changed") {};

    private final OptimizerConfig optimizerConfig;
    private final RowInitializer initializer;
    private final int minFrequency;
    private final Duration rowTtl;
    private final boolean publishChangedRows;
    private final RowCacheSize rowCacheSize;
    /**
     * After how long without a change a changed row is written back between barriers (looked for
     * every half of it): a row that went quiet is unlikely to change again before the barrier, and
     * writing it now in a small batch keeps it out of the barrier's write-back, during which pushes wait.
     */
    private final long quietMs;

    private transient Optimizer optimizer;
    private transient MapState<Long, EmbeddingRow> rows;
    private transient RowCache cache;
    private transient int slotWidth;
    private transient MapState<Long, Integer> pending;
    private transient MapState<Integer, Long> applied;
    private transient AppliedBatches lastApplied;
    private transient PsMetrics metrics;
    private transient long lastReportAt;
    private transient long lastSweepAt;
    private transient AppliedNotices notices;
    private transient boolean flushScheduled;
    private transient KeyGroups keyGroups;
    private transient KeyContext keyContext;
    /** The row a push updates when it is cached: read into this copy, changed, and put back. */
    private transient EmbeddingRow scratch;
    /** Row objects reused by each write-back, one per row of the largest key group written back. */
    private transient List<EmbeddingRow> writeBackRows;
    private transient RowBatch writeBackBatch;
    /**
     * A push's changed rows when there is no row cache, written to RocksDB in one write batch (one
     * JNI write, not one per row), in the push's key order: pulls, and so pushes, list their keys
     * sorted (BatchAssembler), and RocksDB inserts sorted keys next to each other.
     */
    private transient RowBatch uncachedChanges;
    /** The changed rows of the checkpoint this subtask was restored from, until {@link #open} writes them to RocksDB. */
    private transient List<byte[]> restoredChangedRows;

    /**
     * @param publishChangedRows emit every changed row on {@link #ROWS_CHANGED}
     * @param rowCacheSize rows kept on the heap in front of RocksDB ({@link RowCache})
     * @param quietWriteBack changed rows not changed again for this long are written back before the barrier
     */
    public ParameterServer(OptimizerConfig optimizerConfig, RowInitializer initializer, int minFrequency, Duration rowTtl,
                           boolean publishChangedRows, RowCacheSize rowCacheSize, Duration quietWriteBack) {
        this.optimizerConfig = optimizerConfig;
        this.initializer = initializer;
        this.minFrequency = Math.max(1, minFrequency);
        this.rowTtl = rowTtl;
        this.publishChangedRows = publishChangedRows;
        this.rowCacheSize = rowCacheSize;
        this.quietMs = Math.max(1, quietWriteBack.toMillis());
    }

    /** Set by {@link ParameterServerOperator} before {@link #open}: lets write-backs switch to each row's key group. */
    void useKeyContext(KeyContext keyContext) {
        this.keyContext = keyContext;
    }

    /**
     * Set by {@link ParameterServerOperator} on a restore, before {@link #open}: every subtask's
     * changed rows of the checkpoint; {@code open} writes those of the key groups this subtask owns.
     */
    void restoreChangedRows(List<byte[]> values) {
        this.restoredChangedRows = values;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        if (keyContext == null) {
            throw new IllegalStateException("the parameter server must run in a ParameterServerOperator");
        }
        optimizer = optimizerConfig.create();
        rows = getRuntimeContext().getMapState(PsState.rows(rowTtl));
        int width = initializer.width();
        slotWidth = optimizer.initialSlots(width).length;
        int cacheRows = rowCacheSize.capacity(width, slotWidth, Runtime.getRuntime().maxMemory());
        cache = new RowCache(cacheRows, width, slotWidth, this::writeEvicted);
        scratch = new EmbeddingRow(new float[width], new float[slotWidth]);
        writeBackRows = new ArrayList<>();
        uncachedChanges = new RowBatch();
        writeBackBatch = new RowBatch();
        keyGroups = new KeyGroups(getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
        LOG.info("{}: row cache of up to {} rows", getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(), cacheRows);
        pending = getRuntimeContext().getMapState(PsState.pending(rowTtl));
        applied = getRuntimeContext().getMapState(PsState.appliedBatches());
        lastApplied = new AppliedBatches(applied::get);
        metrics = new PsMetrics(getRuntimeContext().getMetricGroup().addGroup("ps"), cache);
        notices = new AppliedNotices();
        if (restoredChangedRows != null) {
            writeRestoredChangedRows();
            restoredChangedRows = null;
        }
    }

    /** The restored checkpoint's changed rows of this subtask's key groups, written to RocksDB (one write batch per key group). */
    private void writeRestoredChangedRows() throws Exception {
        KeyGroupRange owned = KeyGroups.ownedBy(getRuntimeContext().getTaskInfo());
        Map<Integer, RowBatch> byGroup = new HashMap<>();
        long restored = 0;
        for (byte[] value : restoredChangedRows) {
            ChangedRows.read(value, (key, row) -> {
                int group = keyGroups.bucketOf(key);
                if (owned.contains(group)) {
                    byGroup.computeIfAbsent(group, g -> new RowBatch()).add(key, row);
                }
            });
        }
        for (Map.Entry<Integer, RowBatch> e : byGroup.entrySet()) {
            inKeyGroup(e.getKey(), () -> rows.putAll(e.getValue()));
            restored += e.getValue().size();
        }
        LOG.info("{}: wrote {} changed rows of the restored checkpoint to RocksDB",
                getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(), restored);
    }

    @Override
    public void processElement1(PullRequest pull, Context ctx, Collector<PulledRows> out) throws Exception {
        int width = initializer.width();
        long[] keys = pull.keys;
        float[] weights = new float[keys.length * width];
        long[] versions = new long[keys.length];
        long now = System.currentTimeMillis();
        for (int i = 0; i < keys.length; i++) {
            int place = cachedPlace(keys[i], now);
            if (place >= 0) {
                cache.copyWeights(place, weights, i * width);
                versions[i] = cache.version(place);
                continue;
            }
            EmbeddingRow row = stored(keys[i], now);
            if (row != null) {
                System.arraycopy(row.weights, 0, weights, i * width, width);
                versions[i] = row.version;
            } else if (admitsOnFirstSight(keys[i])) {
                System.arraycopy(newRow(keys[i], now).weights, 0, weights, i * width, width);
            } // else: not admitted yet, contributes zeros
        }
        metrics.rowsPulled.inc(keys.length);
        out.collect(new PulledRows(pull.keyGroup, pull.sourcePartition, pull.batchSeq, now, keys, weights, versions));
    }

    @Override
    public void processElement2(Push push, Context ctx, Collector<PulledRows> out) throws Exception {
        if (lastApplied.applied(push.keyGroup, push.sourcePartition, push.batchSeq)) {
            metrics.duplicatePushes.inc();
            announce(push, ctx);
            return;
        }
        long now = System.currentTimeMillis();
        int width = initializer.width();
        long[] keys = push.keys;
        int[] occurrences = push.occurrences;
        float[] grad = push.gradients;
        for (int i = 0; i < keys.length; i++) {
            long key = keys[i];
            int occ = occurrences[i];
            EmbeddingRow row = current(key, now);
            if (row == null) {
                long seenBefore = 0;
                if (!admitsOnFirstSight(key)) {
                    Integer p = pending.get(key);
                    int total = (p == null ? 0 : p) + occ;
                    if (total < minFrequency) {
                        if (p == null) {
                            metrics.pendingCreated.inc();
                        }
                        pending.put(key, total);
                        continue;
                    }
                    pending.remove(key);
                    seenBefore = total - occ;
                }
                row = newRow(key, now);
                row.count = seenBefore;
            }
            if (row.version == 0) {
                metrics.rowsAdmitted.inc(); // its first update: made just now, or by its pull and cached
            }
            dampStale(grad, i * width, width, row.version - versionAt(push, i));
            optimizer.apply(row.weights, row.slots, grad, i * width, occ);
            row.version++;
            row.count += occ;
            row.updatedAt = now;
            if (!cache.putChanged(key, row)) {
                uncachedChanges.add(key, row); // never the scratch copy: only a cache of no rows refuses a change
            }
            if (publishChangedRows) {
                ctx.output(ROWS_CHANGED, new RowChanged(key, row.weights.clone(), now));
            }
        }
        if (!uncachedChanges.isEmpty()) {
            rows.putAll(uncachedChanges);
            uncachedChanges.clear();
        }
        lastApplied.advance(push.keyGroup, push.sourcePartition, push.batchSeq);
        metrics.pushesApplied.inc();
        metrics.stale(now - push.pulledAt);
        if (now - lastReportAt >= REPORT_EVERY_MS) {
            lastReportAt = now;
            ctx.output(REPORTS, report(now));
        }
        if (now - lastSweepAt >= quietMs / 2) {
            lastSweepAt = now;
            long[] quiet = cache.changedKeys(now - quietMs);
            if (quiet.length > 0) {
                writeBack(quiet);
            }
        }
        announce(push, ctx);
    }

    /** Writes the last batch applied per key group and source partition to RocksDB: before each checkpoint barrier. */
    void writeBackAppliedBatches() throws Exception {
        lastApplied.writeBack((group, partition, seq) -> inKeyGroup(group, () -> applied.put(partition, seq)));
    }

    /**
     * A copy of every row the cache holds changed, newer than its RocksDB row, for the checkpoint's
     * operator state (taken in the same synchronous step as the RocksDB snapshot, so the two
     * together are the model at the barrier). The rows stay changed: they are written to RocksDB
     * when they go quiet or leave the cache, and until then every checkpoint carries them.
     */
    byte[] changedRowsSnapshot() throws Exception {
        long start = System.nanoTime();
        ChangedRows.Writer writer = new ChangedRows.Writer(cache.changedCount(), initializer.width(), slotWidth);
        cache.writeChanged(writer);
        byte[] value = writer.toBytes();
        metrics.changedRowsSnapshotMs.update((System.nanoTime() - start) / 1_000_000);
        return value;
    }

    /** Writes every changed row (each then marked written) and the last batches applied to RocksDB: at the end of input. */
    void writeBackAll() throws Exception {
        writeBackAppliedBatches();
        if (cache.changedCount() > 0) {
            writeBack(cache.changedKeys(Long.MAX_VALUE));
        }
    }

    /**
     * Writes the cached rows of {@code keys} to RocksDB, each under its own key group, in RocksDB's
     * key order (one write batch per key group; sorted keys go into the memtable next to each
     * other), and marks them written.
     */
    private void writeBack(long[] keys) throws Exception {
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
                writeBackBatch.add(key, cache.read(place, writeBackRow(i - start[g])));
                cache.written(place);
            }
            inKeyGroup(g, () -> rows.putAll(writeBackBatch));
            writeBackBatch.clear();
        }
        metrics.rowsWrittenBack.inc(keys.length);
    }

    private EmbeddingRow writeBackRow(int i) {
        if (i == writeBackRows.size()) {
            writeBackRows.add(new EmbeddingRow(new float[initializer.width()], new float[slotWidth]));
        }
        return writeBackRows.get(i);
    }

    /** A changed row that leaves the cache for a new one: written now, under its own key group. */
    private void writeEvicted(long key, EmbeddingRow row) throws Exception {
        metrics.rowsWrittenBack.inc();
        inKeyGroup(keyGroups.bucketOf(key), () -> rows.put(key, row));
    }

    /**
     * Runs {@code write} with the key context set to key group {@code group}, then restores the
     * element's key: a row of any key group may have to be written while another's element is handled.
     */
    private void inKeyGroup(int group, ThrowingRunnable<Exception> write) throws Exception {
        Object current = keyContext.getCurrentKey();
        Integer key = keyGroups.keyOf(group);
        if (key.equals(current)) {
            write.run();
            return;
        }
        keyContext.setCurrentKey(key);
        try {
            write.run();
        } finally {
            if (current != null) {
                keyContext.setCurrentKey(current);
            }
        }
    }

    private void announce(Push push, Context ctx) {
        notices.add(push.sourcePartition, push.batchSeq);
        if (!flushScheduled) {
            // Any key's timer will do: the notices are not keyed. One pending timer at a time.
            ctx.timerService().registerProcessingTimeTimer(ctx.timerService().currentProcessingTime() + NOTICE_FLUSH_MS);
            flushScheduled = true;
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<PulledRows> out) {
        // Also fires for timers restored from a checkpoint, with nothing open: then a no-op.
        flushScheduled = false;
        for (PushApplied done : notices.flush()) {
            ctx.output(APPLIED, done);
        }
    }

    private StalenessReport report(long now) {
        StalenessReport r = new StalenessReport();
        r.time = now;
        r.subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        r.attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
        r.parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        var stats = metrics.staleness.getStatistics();
        r.p50Ms = stats.getQuantile(0.5);
        r.p99Ms = stats.getQuantile(0.99);
        return r;
    }

    private static long versionAt(Push push, int i) {
        return push.versions.length > i ? push.versions[i] : 0;
    }

    /**
     * Staleness-aware step (Zhang et al., "Staleness-aware Async-SGD", IJCAI 2016): a gradient
     * computed from a row that has since taken {@code missed} other updates is applied scaled by
     * 1 / (1 + missed). Without it, a backlog lets many batches push the same stale direction and
     * hot rows overshoot.
     */
    private static void dampStale(float[] grad, int off, int width, long missed) {
        if (missed > 0) {
            float scale = 1f / (1 + missed);
            for (int j = off; j < off + width; j++) {
                grad[j] *= scale;
            }
        }
    }

    /**
     * A row's deterministic first value, kept in the cache (not in RocksDB): the push that follows
     * the pull finds it there instead of looking it up and drawing it again. It is persisted by its
     * first update; until then RocksDB holding no row means the same row.
     */
    private EmbeddingRow newRow(long key, long now) throws Exception {
        EmbeddingRow row = initializer.newRow(key, optimizer);
        row.updatedAt = now; // for the TTL check while it waits in the cache
        cache.put(key, row);
        return row;
    }

    private boolean admitsOnFirstSight(long key) {
        return minFrequency <= 1 || key == FeatureKey.BIAS;
    }

    /**
     * The row of {@code key} from the cache or RocksDB, or null if it has none: a copy, which the
     * caller may change and put back (a cached row's copy is {@link #scratch}, valid until the next
     * call). A row past its TTL that compaction has not removed yet counts as gone.
     */
    private EmbeddingRow current(long key, long now) throws Exception {
        int place = cachedPlace(key, now);
        if (place >= 0) {
            return cache.read(place, scratch);
        }
        return stored(key, now);
    }

    /** The cache's place of {@code key}'s live row, or -1. */
    private int cachedPlace(long key, long now) {
        int place = cache.find(key);
        if (place < 0) {
            return -1;
        }
        if (expired(cache.updatedAt(place), now)) {
            metrics.rowsExpired.inc();
            cache.remove(key);
            return -1;
        }
        metrics.rowCacheHits.inc();
        return place;
    }

    /** The live row of {@code key} in RocksDB (then also cached), or null. */
    private EmbeddingRow stored(long key, long now) throws Exception {
        EmbeddingRow row = rows.get(key);
        if (row == null) {
            return null;
        }
        if (expired(row.updatedAt, now)) {
            metrics.rowsExpired.inc();
            return null;
        }
        metrics.rowCacheMisses.inc();
        cache.put(key, row);
        return row;
    }

    private boolean expired(long updatedAt, long now) {
        return rowTtl != null && now - updatedAt >= rowTtl.toMillis();
    }

    /** The PS's metric group: {@code <operator>.ps.*}. */
    static final class PsMetrics {
        final Counter rowsPulled;
        final Counter pushesApplied;
        final Counter duplicatePushes;
        final Counter rowsAdmitted;
        final Counter pendingCreated;
        final Counter rowsExpired;
        final Counter rowCacheHits;
        final Counter rowCacheMisses;
        final Counter rowsWrittenBack;
        final Histogram staleness;
        final Histogram runStaleness;
        final Histogram changedRowsSnapshotMs;

        /** @param cache whose changed rows, what the next checkpoint copies into operator state, are a gauge */
        PsMetrics(MetricGroup group, RowCache cache) {
            rowsPulled = group.counter("rowsPulled");
            pushesApplied = group.counter("pushesApplied");
            duplicatePushes = group.counter("duplicatePushesDropped");
            rowsAdmitted = group.counter("rowsAdmitted");
            pendingCreated = group.counter("featuresPending");
            rowsExpired = group.counter("rowsExpired");
            rowCacheHits = group.counter("rowCacheHits");
            rowCacheMisses = group.counter("rowCacheMisses");
            rowsWrittenBack = group.counter("rowsWrittenBack");
            staleness = group.histogram("gradientStalenessMs", new DescriptiveStatisticsHistogram(2048));
            runStaleness = group.histogram("gradientStalenessRunMs", new RunHistogram());
            changedRowsSnapshotMs = group.histogram("changedRowsSnapshotMs", new DescriptiveStatisticsHistogram(256));
            group.gauge("changedRows", cache::changedCount);
        }

        /** One push's staleness, into the recent window and the whole run's histogram alike. */
        void stale(long ms) {
            staleness.update(ms);
            runStaleness.update(ms);
        }
    }
}
