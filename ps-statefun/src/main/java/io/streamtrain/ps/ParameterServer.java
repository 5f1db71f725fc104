package io.streamtrain.ps;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.message.PushApplied;
import io.streamtrain.ps.message.RowChanged;
import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.row.DenseParameters;
import io.streamtrain.ps.row.RowInitializer;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parameter server: keyed by PS key group, it answers pulls (input 1) with the current rows
 * ({@link PullServer}) and applies gradient pushes read back from the feedback topic (input 2,
 * {@link PushApplier}), each batch at most once. Every push handled, applied or dropped, is
 * announced on {@link #APPLIED} for the batcher's flow control, one notice per batch and 2 ms
 * window ({@link AppliedNotices}). The rows live in a {@link RowStore}: a heap cache in front of
 * RocksDB, with admission ({@link Admission}) and expiry ({@link RowExpiry}). Time is the
 * operator's processing time, so tests drive it.
 *
 * <p>A checkpoint does not wait for changed rows to reach RocksDB: it copies the rows still changed
 * into operator state ({@link #changedRowsSnapshot}, {@link ChangedRows}), which a restore writes
 * back ({@link #restoreChangedRows}) and the exporter reads over the stored rows. Writing them to
 * RocksDB before each barrier holds up every push for 40-60 ms and writes hot rows once a second;
 * the copy takes 10-25 ms (docs/decisions/0006-write-back-row-cache.md). The last batch applied per partition reaches
 * RocksDB before each barrier, with the dense chunks ({@link #writeBackBeforeBarrier}, {@link DenseRows}). Writing a row under its own key
 * group needs the operator's key context: run this function in a {@link ParameterServerOperator}.
 */
public class ParameterServer extends KeyedCoProcessFunction<Integer, PullRequest, Push, PulledRows> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ParameterServer.class);
    /** The window over which applied notices are coalesced, one per batch (AppliedNotices). */

    /** Staleness quantiles, about once a report interval while pushes arrive (for the metrics topic). */
    public static final OutputTag<StalenessReport> REPORTS = new OutputTag<>("ps-reports") {};

    /** Notices of pushes handled, one per batch and flush window: lets the batcher bound the batches in flight (BatchCredits). */
    public static final OutputTag<PushApplied> APPLIED = new OutputTag<>("push-applied") {};

    /** Every row a push changed, when the job publishes model updates (serving follows them). */
    public static final OutputTag<RowChanged> ROWS_CHANGED = new OutputTag<>("rows-changed") {};

    private final OptimizerConfig optimizerConfig;
    private final RowInitializer initializer;
    private final DenseParameters denseParameters;
    private final int minFrequency;
    private final Duration rowTtl;
    private final boolean publishChangedRows;
    private final RowCacheSize rowCacheSize;
    private final long quietMs;
    private final long noticeFlushMs;
    private final long reportEveryMs;

    private transient KeyContext keyContext;
    /** The changed rows of the checkpoint this subtask was restored from, until {@link #open} writes them to RocksDB. */
    private transient List<byte[]> restoredChangedRows;
    private transient PsMetrics metrics;
    private transient RowStore rows;
    private transient PullServer pulls;
    private transient PushApplier pushes;
    private transient StalenessReporter staleness;
    private transient AppliedNotices notices;

    /**
     * @param denseParameters a deep model's dense parameters ({@link DenseRows}), or {@link DenseParameters#NONE}
     * @param minFrequency occurrences before a feature gets a row ({@link Admission})
     * @param rowTtl rows not updated for this long count as gone, or null ({@link RowExpiry})
     * @param publishChangedRows emit every changed row on {@link #ROWS_CHANGED}
     * @param rowCacheSize rows kept on the heap in front of RocksDB ({@link RowCache})
     * @param quietWriteBack changed rows not changed again for this long are written back before the barrier ({@link RowWriteBack})
     * @param noticeFlushDelay applied notices are gathered this long before they are sent
     * @param reportInterval time between two {@link StalenessReport}s of a subtask
     */
    public ParameterServer(OptimizerConfig optimizerConfig, RowInitializer initializer, DenseParameters denseParameters,
                           int minFrequency, Duration rowTtl,
                           boolean publishChangedRows, RowCacheSize rowCacheSize, Duration quietWriteBack,
                           Duration noticeFlushDelay, Duration reportInterval) {
        this.optimizerConfig = optimizerConfig;
        this.initializer = initializer;
        this.denseParameters = denseParameters;
        this.minFrequency = minFrequency;
        this.rowTtl = rowTtl;
        this.publishChangedRows = publishChangedRows;
        this.rowCacheSize = rowCacheSize;
        this.quietMs = quietWriteBack.toMillis();
        this.noticeFlushMs = noticeFlushDelay.toMillis();
        this.reportEveryMs = reportInterval.toMillis();
    }

    /** Set by {@link ParameterServerOperator} before {@link #open}: lets writes switch to each row's key group. */
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
        TaskInfo task = getRuntimeContext().getTaskInfo();
        Optimizer optimizer = optimizerConfig.create();
        int width = initializer.width();
        int slotWidth = optimizer.initialSlots(width).length;
        int cacheRows = rowCacheSize.capacity(width, slotWidth, Runtime.getRuntime().maxMemory());
        LOG.info("{}: row cache of up to {} rows", task.getTaskNameWithSubtasks(), cacheRows);
        metrics = new PsMetrics(getRuntimeContext().getMetricGroup().addGroup("ps"));
        KeyGroupScope scope = new KeyGroupScope(keyContext, new KeyGroups(task.getMaxNumberOfParallelSubtasks()));
        var stored = getRuntimeContext().getMapState(PsState.rows(rowTtl));
        RowWriteBack writeBack = new RowWriteBack(stored, scope, metrics.rowsWrittenBack, width, slotWidth, quietMs);
        rows = new RowStore(stored, cacheRows, writeBack, new RowExpiry(rowTtl), initializer, optimizer, metrics);
        Admission admission = new Admission(minFrequency, getRuntimeContext().getMapState(PsState.pending(rowTtl)), metrics.pendingCreated);
        DenseRows dense = new DenseRows(getRuntimeContext().getMapState(PsState.denseRows()),
                getRuntimeContext().getMapState(PsState.denseUsualMissed()), denseParameters, scope);
        pulls = new PullServer(rows, dense, admission, width, metrics.rowsPulled);
        pushes = new PushApplier(rows, dense, admission, optimizer, width,
                getRuntimeContext().getMapState(PsState.appliedBatches()), scope, metrics);
        staleness = new StalenessReporter(metrics.staleness, metrics.runStaleness, task, reportEveryMs);
        notices = new AppliedNotices();
        if (restoredChangedRows != null) {
            long restored = rows.restore(restoredChangedRows, KeyGroups.ownedBy(task));
            restoredChangedRows = null;
            LOG.info("{}: wrote {} changed rows of the restored checkpoint to RocksDB", task.getTaskNameWithSubtasks(), restored);
        }
    }

    @Override
    public void processElement1(PullRequest pull, Context ctx, Collector<PulledRows> out) throws Exception {
        out.collect(pulls.answer(pull, now(ctx)));
    }

    @Override
    public void processElement2(Push push, Context ctx, Collector<PulledRows> out) throws Exception {
        long now = now(ctx);
        if (pushes.apply(push, now, publishChangedRows ? published(ctx, now) : PushApplier.ChangedRowSink.NONE)) {
            StalenessReport report = staleness.record(push.pulledAt, now);
            if (report != null) {
                ctx.output(REPORTS, report);
            }
            rows.writeBackQuiet(now);
        }
        if (notices.add(push.sourcePartition, push.batchSeq)) {
            // Any key's timer will do: the notices are not keyed. One pending timer at a time.
            ctx.timerService().registerProcessingTimeTimer(now + noticeFlushMs);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<PulledRows> out) {
        // Also fires for timers restored from a checkpoint: then there may be nothing to flush.
        for (PushApplied done : notices.flush()) {
            ctx.output(APPLIED, done);
        }
    }

    /** Writes the last batch applied per key group and source partition, and the changed dense chunks, to RocksDB: before each checkpoint barrier. */
    void writeBackBeforeBarrier() throws Exception {
        pushes.writeBackBeforeBarrier();
    }

    /** The row cache's changed rows for the checkpoint's operator state ({@link RowStore#changedRows}). */
    byte[] changedRowsSnapshot() {
        long start = System.nanoTime();
        byte[] value = rows.changedRows();
        metrics.changedRowsSnapshotMs.update((System.nanoTime() - start) / 1_000_000);
        return value;
    }

    /** Writes every changed row and the last batches applied to RocksDB: at the end of input. */
    void writeBackAll() throws Exception {
        writeBackBeforeBarrier();
        rows.writeBackAll();
    }

    /** The operator's processing time: the wall clock in a job, the test's clock under a test harness. */
    private static long now(Context ctx) {
        return ctx.timerService().currentProcessingTime();
    }

    /** Publishes each changed row's weights and version on {@link #ROWS_CHANGED}, stamped with {@code now}. */
    private static PushApplier.ChangedRowSink published(Context ctx, long now) {
        return (key, weights, version) -> ctx.output(ROWS_CHANGED, new RowChanged(key, weights.clone(), version, now));
    }
}
