package io.streamtrain.train.batch;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.train.batch.ExampleValidator.Verdict;
import io.streamtrain.train.worker.WindowReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts each source partition's records into mini-batches (keyed by partition) and sends, per batch,
 * one pull per PS key group. A replay after a failure must cut exactly the same batches, or the
 * PS's duplicate check would drop or double records. So a batch closes only
 * <ul>
 *   <li>when it reaches the batch size ({@link BatchSizeRamp}: smaller for a partition's first batches), or</li>
 *   <li>when a record's timestamp is more than max-wait after the batch's first record's,</li>
 * </ul>
 * both pure functions of the record sequence. The third rule, an idle partition's open batch
 * closing after max-wait of wall-clock time, is not: such a batch is <em>sealed</em> in state and
 * emitted only after a checkpoint containing the seal completes; records arriving meanwhile are
 * held and cut after it. A restore therefore sees either no seal (and re-cuts deterministically)
 * or the durable seal. And a partition is sealed only when Kafka holds no record after the open
 * batch ({@link PartitionTail}): a replay, which looks idle for a moment while its restarted
 * source catches up, must not cut where the failed run cut later and already pushed beyond.
 *
 * <p>Before a batch goes out it waits for a credit ({@link BatchCredits}), which bounds the
 * batches pulled but not yet applied, and so the staleness of their gradients.
 *
 * <p>The open batches and their bookkeeping live on the heap and reach keyed state once per
 * checkpoint, before its barrier ({@link MiniBatcherOperator} calls {@link #writeBack}): two
 * RocksDB writes per record were a third of this thread. What a checkpoint holds is the same
 * either way, so a restore cuts the same batches.
 */
public class MiniBatcher extends KeyedProcessFunction<Integer, SourceRecord, MiniBatch>
        implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private static final long SEAL_POLL_MS = 50;
    private static final Logger LOG = LoggerFactory.getLogger(MiniBatcher.class);

    public static final OutputTag<PullRequest> PULLS = new OutputTag<>("pulls") {};
    public static final OutputTag<Rejected> DEAD_LETTERS = new OutputTag<>("dead-letters") {};
    /** This subtask's consumer lag, about once a second while records or timers arrive (for the metrics topic). */
    public static final OutputTag<WindowReport> REPORTS = new OutputTag<>("batcher-reports") {};
    private static final long REPORT_EVERY_MS = 1000;

    private final KeyGroups keyGroups;
    private final BatchSizeRamp batchSizes;
    private final long maxWaitMs;
    private final ExampleValidator validator;
    private final long injectFailureAfter;
    private final String topic;
    private final PartitionTail tail;
    private final PartitionLag lag;
    private final BatchCredits credits;

    private transient ValueState<BatcherMeta> metaState;
    private transient ListState<BatchRecord> openBatch;
    private transient ListState<BatchRecord> held;
    /** Per partition key, the open batch; state is written from it before each barrier, read after a restore. */
    private transient Map<Integer, OpenBatch> open;
    private transient long lastStartedSnapshot;
    private transient long lastCompletedCheckpoint;
    private transient long recordsSeen;
    private transient Counter batchesCounter;
    private transient Counter deadLetterCounter;
    private transient Counter recordsCounter;
    private transient Counter duplicateCounter;
    private transient Counter beyondRangeCounter;
    private transient Map<String, Counter> deadLettersByReason;
    private transient MetricGroup metricGroup;
    private transient long lastReportAt;
    /**
     * Records taken from the source that no emitted batch holds yet (open, sealed or held behind a
     * seal): a gauge, so that whoever waits for a run to have trained everything it read can tell
     * (committed source offsets already count them). A plain field, like Flink's own counters: it
     * changes with every record, and a gauge may read it a little late.
     */
    private transient long recordsAwaitingBatch;

    public MiniBatcher(KeyGroups keyGroups, BatchSizeRamp batchSizes, long maxWaitMs, ExampleValidator validator, long injectFailureAfter,
                       String topic, PartitionTail tail, PartitionLag lag, BatchCredits credits) {
        this.topic = topic;
        this.tail = tail;
        this.lag = lag;
        this.credits = credits;
        this.keyGroups = keyGroups;
        this.batchSizes = batchSizes;
        this.maxWaitMs = maxWaitMs;
        this.validator = validator;
        this.injectFailureAfter = injectFailureAfter;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
        long restored = context.getRestoredCheckpointId().orElse(0L);
        lastStartedSnapshot = restored;
        lastCompletedCheckpoint = restored;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        lastStartedSnapshot = Math.max(lastStartedSnapshot, context.getCheckpointId());
        credits.resume();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        lastCompletedCheckpoint = Math.max(lastCompletedCheckpoint, checkpointId);
    }

    @Override
    public void open(OpenContext openContext) {
        metaState = getRuntimeContext().getState(new ValueStateDescriptor<>("batcher-meta", BatcherMeta.class));
        openBatch = getRuntimeContext().getListState(new ListStateDescriptor<>("open-batch", BatchRecord.class));
        held = getRuntimeContext().getListState(new ListStateDescriptor<>("held-records", BatchRecord.class));
        open = new HashMap<>();
        var group = getRuntimeContext().getMetricGroup().addGroup("batcher");
        batchesCounter = group.counter("batchesEmitted");
        deadLetterCounter = group.counter("deadLetters");
        recordsCounter = group.counter("recordsIn");
        duplicateCounter = group.counter("duplicateRecordsDropped");
        beyondRangeCounter = group.counter("recordsBeyondRange");
        group.gauge("recordsAwaitingBatch", () -> recordsAwaitingBatch);
        deadLettersByReason = new HashMap<>();
        metricGroup = group;
        lag.open(group);
        credits.open(group);
    }

    @Override
    public void processElement(SourceRecord record, Context ctx, Collector<MiniBatch> out) throws Exception {
        maybeInjectFailure();
        maybeReport(ctx);
        if (tail.beyondRange(record.partition, record.offset)) {
            beyondRangeCounter.inc(); // a backfill's source reads on past its range (see TrainingJob)
            return;
        }
        recordsCounter.inc();
        OpenBatch batch = load(ctx.getCurrentKey(), record.partition);
        if (record.offset < batch.meta.nextOffset) {
            // The source delivered a record this run has already taken: cutting it again would
            // put it in two batches under two sequence numbers, and the PS would apply both.
            duplicateCounter.inc();
            LOG.warn("dropped a duplicate delivery of {}-{} offset {} (expected offset >= {})",
                    record.topic, record.partition, record.offset, batch.meta.nextOffset);
            return;
        }
        batch.meta.nextOffset = record.offset + 1;
        batch.nextOffset.set(batch.meta.nextOffset);
        batch.dirty = true;
        Verdict verdict = validator.validate(record);
        if (verdict.deadLetter() != null) {
            deadLetterCounter.inc();
            deadLettersByReason.computeIfAbsent(verdict.deadLetter().reason,
                    r -> metricGroup.addGroup("reason", r).counter("deadLetters")).inc();
            ctx.output(DEAD_LETTERS, verdict.deadLetter());
            return;
        }
        if (batch.meta.sealed) {
            held.add(verdict.record());
            recordsAwaitingBatch++;
            return;
        }
        append(batch, verdict.record(), ctx, out);
    }

    private void append(OpenBatch batch, BatchRecord r, Context ctx, Collector<MiniBatch> out) throws Exception {
        if (!batch.records.isEmpty() && r.timestamp - batch.firstTimestamp > maxWaitMs) {
            cut(batch, ctx, out);
        }
        if (batch.records.isEmpty()) {
            batch.firstTimestamp = r.timestamp;
            ctx.timerService().registerProcessingTimeTimer(ctx.timerService().currentProcessingTime() + maxWaitMs);
        }
        batch.records.add(r);
        recordsAwaitingBatch++;
        batch.dirty = true;
        batch.lastArrival = ctx.timerService().currentProcessingTime();
        if (batch.records.size() >= batchSizes.sizeOf(batch.meta.nextSeq)) {
            cut(batch, ctx, out);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<MiniBatch> out) throws Exception {
        OpenBatch batch = load(ctx.getCurrentKey(), -1);
        long now = ctx.timerService().currentProcessingTime();
        maybeReport(ctx);
        if (batch.meta.sealed) {
            if (lastCompletedCheckpoint > batch.meta.sealedAfterSnapshot) {
                release(batch, ctx, out);
            } else {
                ctx.timerService().registerProcessingTimeTimer(now + SEAL_POLL_MS);
            }
        } else if (!batch.records.isEmpty()) {
            if (now - batch.lastArrival >= maxWaitMs && tail.drainedFrom(topic, batch.meta.partition, batch.meta.nextOffset)) {
                batch.meta.sealed = true;
                batch.meta.sealedAfterSnapshot = lastStartedSnapshot;
                batch.dirty = true;
                ctx.timerService().registerProcessingTimeTimer(now + SEAL_POLL_MS);
            } else {
                ctx.timerService().registerProcessingTimeTimer(Math.max(batch.lastArrival, now) + maxWaitMs);
            }
        }
    }

    private void maybeReport(Context ctx) {
        long now = System.currentTimeMillis();
        if (now - lastReportAt >= REPORT_EVERY_MS) {
            lastReportAt = now;
            var task = getRuntimeContext().getTaskInfo();
            ctx.output(REPORTS, WindowReport.batcher(now, task.getIndexOfThisSubtask(), task.getAttemptNumber(),
                    task.getNumberOfParallelSubtasks(), lag.total()));
        }
    }

    /** The sealed batch's cut is durable: emit it, then cut the records held behind it. */
    private void release(OpenBatch batch, Context ctx, Collector<MiniBatch> out) throws Exception {
        batch.meta.sealed = false;
        cut(batch, ctx, out);
        List<BatchRecord> waiting = new ArrayList<>();
        for (BatchRecord r : held.get()) {
            waiting.add(r);
        }
        held.clear();
        recordsAwaitingBatch -= waiting.size(); // counted again as they join the open batch
        for (BatchRecord r : waiting) {
            append(batch, r, ctx, out);
        }
    }

    private void cut(OpenBatch batch, Context ctx, Collector<MiniBatch> out) throws Exception {
        List<BatchRecord> records = batch.records;
        batch.records = emptyBatch();
        recordsAwaitingBatch -= records.size();
        batch.dirty = true;
        BatchAssembler.Assembled assembled =
                BatchAssembler.assemble(keyGroups, batch.meta.partition, batch.meta.nextSeq, records);
        credits.awaitCredit();
        for (PullRequest pull : assembled.pulls()) {
            ctx.output(PULLS, pull);
        }
        credits.sent(batch.meta.partition, batch.meta.nextSeq, assembled.pulls().size());
        out.collect(assembled.batch());
        batch.meta.nextSeq++;
        batchesCounter.inc();
    }

    /**
     * The open batch of the current key, loaded from state on first use after (re)start. A new
     * partition's meta goes to state with the next write-back, with the timers that need it.
     */
    private OpenBatch load(Integer key, int partition) throws Exception {
        OpenBatch batch = open.get(key);
        if (batch == null) {
            batch = new OpenBatch();
            BatcherMeta meta = metaState.value();
            if (meta == null) {
                if (partition < 0) {
                    throw new IllegalStateException("timer for partition key " + key + " without batcher state");
                }
                meta = new BatcherMeta();
                meta.partition = partition;
                batch.dirty = true;
            }
            batch.meta = meta;
            batch.nextOffset = lag.nextOffsetOf(meta.partition);
            batch.nextOffset.set(meta.nextOffset);
            batch.records = emptyBatch();
            for (BatchRecord r : openBatch.get()) {
                if (batch.records.isEmpty()) {
                    batch.firstTimestamp = r.timestamp;
                }
                batch.records.add(r);
            }
            recordsAwaitingBatch += batch.records.size() + count(held.get());
            batch.lastArrival = System.currentTimeMillis();
            open.put(key, batch);
        }
        return batch;
    }

    private static long count(Iterable<BatchRecord> records) {
        long n = 0;
        if (records != null) {
            for (BatchRecord ignored : records) {
                n++;
            }
        }
        return n;
    }

    /** Room for a whole batch, unless the batch size is set very large. */
    private List<BatchRecord> emptyBatch() {
        return new ArrayList<>(Math.min(batchSizes.full(), 4096));
    }

    /**
     * Writes the open batches changed since the last call to keyed state; {@code selectKey} makes
     * a partition key the current one. Called before each checkpoint barrier.
     */
    void writeBack(Consumer<Integer> selectKey) throws Exception {
        for (Map.Entry<Integer, OpenBatch> e : open.entrySet()) {
            OpenBatch batch = e.getValue();
            if (batch.dirty) {
                selectKey.accept(e.getKey());
                metaState.update(batch.meta);
                openBatch.update(batch.records);
                batch.dirty = false;
            }
        }
    }

    @Override
    public void close() throws Exception {
        tail.close();
        lag.close();
        credits.close();
        super.close();
    }

    private void maybeInjectFailure() {
        if (injectFailureAfter > 0
                && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0
                && ++recordsSeen == injectFailureAfter) {
            throw new InjectedFailure("injected failure after " + injectFailureAfter + " records (--inject-failure-after)");
        }
    }

    /** What --inject-failure-after throws; the job restarts from its latest checkpoint. */
    public static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }

    private static final class OpenBatch {
        BatcherMeta meta;
        List<BatchRecord> records;
        /** Changed since its last write to state. */
        boolean dirty;
        long firstTimestamp;
        long lastArrival;
        AtomicLong nextOffset;
    }
}
