package io.streamtrain.train.batch;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.train.batch.ExampleValidator.Verdict;
import io.streamtrain.train.worker.WindowReport;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.metrics.Counter;
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
 * PS's duplicate check would drop or double records. Per record:
 * <ol>
 *   <li>records past a backfill's range and repeated deliveries are dropped;</li>
 *   <li>a record that cannot be trained on goes to the dead letters ({@link Rejections});</li>
 *   <li>it joins its partition's open batch ({@link OpenBatches}), which closes by count ({@link BatchSizeRamp}: smaller for a partition's first
 *       batches), record time ({@link BatchCutter}) and, in a replay, where the failed attempt's idle cuts are
 *       recorded ({@link CutReader}), or is held while that batch is sealed and its cut may be durable ({@link SealProtocol});</li>
 *   <li>a closed batch goes out once flow control has a credit for it ({@link BatchEmitter}).</li>
 * </ol>
 * A processing-time timer per partition closes an idle batch through the seal protocol, which
 * records the cut in the cut log ({@link CutWriter}).
 * Time is the operator's processing time, so a test harness sets it.
 */
public class MiniBatcher extends KeyedProcessFunction<Integer, SourceRecord, MiniBatch>
        implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(MiniBatcher.class);

    public static final OutputTag<PullRequest> PULLS = BatchEmitter.PULLS;
    public static final OutputTag<Rejected> DEAD_LETTERS = Rejections.DEAD_LETTERS;
    /** This subtask's consumer lag, about once a report interval while records or timers arrive (for the metrics topic). */
    public static final OutputTag<WindowReport> REPORTS = LagReporter.REPORTS;

    private final BatchCutter cutter;
    private final ExampleValidator validator;
    private final PartitionTail tail;
    private final FailureInjection failure;
    private final SealProtocol seals;
    private final BatchEmitter emitter;
    private final LagReporter reporter;
    /** Replaced on restore by the same log with its lineage's start ({@link CutLog#continuing}). */
    private CutLog cutLog;
    private final Rejections rejections = new Rejections();

    private transient TaskAccess task;
    private transient ListState<Tuple3<String, Integer, Long>> cutLogStart;
    private transient OpenBatches batches;
    /** Null without a cut log. */
    private transient CutWriter cutWriter;
    private transient CutReader cutReader;
    private transient Counter recordsIn;
    private transient Counter duplicatesDropped;
    private transient Counter beyondRange;
    /**
     * Records taken from the source that no emitted batch holds yet (open, sealed or held behind a
     * seal): a gauge, so that whoever waits for a run to have trained everything it read can tell
     * (committed source offsets already count them). A plain field, like Flink's own counters: it
     * changes with every record, and a gauge may read it a little late.
     */
    private transient long recordsAwaitingBatch;

    public MiniBatcher(KeyGroups keyGroups, long[] denseKeys, BatchSizeRamp batchSizes, long maxWaitMs, ExampleValidator validator, long injectFailureAfter,
                       String topic, PartitionTail tail, PartitionLag lag, BatchCredits credits, CutLog cutLog, long reportEveryMs) {
        this.cutter = new BatchCutter(batchSizes, maxWaitMs);
        this.validator = validator;
        this.tail = tail;
        this.failure = new FailureInjection(injectFailureAfter);
        this.seals = new SealProtocol(topic, tail, maxWaitMs, cutLog.isOn());
        this.emitter = new BatchEmitter(keyGroups, denseKeys, credits);
        this.reporter = new LagReporter(lag, reportEveryMs);
        this.cutLog = cutLog;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        seals.restored(context.getRestoredCheckpointId().orElse(0L));
        // Union state: every subtask learns the lineage's start, whichever partitions it gets.
        cutLogStart = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("cut-log-start",
                Types.TUPLE(Types.STRING, Types.INT, Types.LONG)));
        if (context.isRestored()) {
            cutLog = cutLog.continuing(cutLogStart.get());
        }
    }

    /** Set by {@link MiniBatcherOperator} before {@link #open}: what of the task a credit wait uses. */
    void runsIn(TaskAccess task) {
        this.task = task;
    }

    @Override
    public void open(OpenContext openContext) {
        if (task == null) {
            throw new IllegalStateException("MiniBatcher runs only inside MiniBatcherOperator");
        }
        var group = getRuntimeContext().getMetricGroup().addGroup("batcher");
        recordsIn = group.counter("recordsIn");
        duplicatesDropped = group.counter("duplicateRecordsDropped");
        beyondRange = group.counter("recordsBeyondRange");
        group.gauge("recordsAwaitingBatch", () -> recordsAwaitingBatch);
        rejections.open(group);
        reporter.open(getRuntimeContext().getTaskInfo(), group, task.time());
        emitter.open(group, task);
        seals.open(getRuntimeContext());
        batches = new OpenBatches(getRuntimeContext(), reporter.lag(), cutter.fullBatchSize());
        if (cutLog.isOn()) {
            cutReader = CutReader.open(cutLog, cutLog.partitions(), task.threadName("cuts-reader"));
            cutWriter = CutWriter.open(cutLog, task.mailbox(), group, this::cutLogged, task.threadName("cuts"));
        }
    }

    @Override
    public void processElement(SourceRecord record, Context ctx, Collector<MiniBatch> out) throws Exception {
        long now = ctx.timerService().currentProcessingTime();
        failure.count(getRuntimeContext().getTaskInfo().getAttemptNumber());
        reporter.maybeReport(now, ctx);
        if (tail.beyondRange(record.partition, record.offset)) {
            beyondRange.inc(); // a backfill's source reads on past its range (see TrainingJob)
            return;
        }
        recordsIn.inc();
        OpenBatch batch = load(ctx.getCurrentKey(), record.partition, now, ctx, out);
        if (!batch.take(record.offset)) {
            duplicatesDropped.inc();
            LOG.warn("dropped a duplicate delivery of {}-{} offset {} (expected offset >= {})",
                    record.topic, record.partition, record.offset, batch.meta.nextOffset);
            return;
        }
        Verdict verdict = validator.validate(record, now);
        if (verdict.deadLetter() != null) {
            rejections.reject(verdict.deadLetter(), ctx);
        } else if (batch.sealed() && !seals.withdraw(batch)) {
            seals.hold(verdict.record());
            recordsAwaitingBatch++;
        } else {
            append(batch, verdict.record(), now, ctx, out);
        }
    }

    private void append(OpenBatch batch, BatchRecord r, long now, Context ctx, Collector<MiniBatch> out) throws InterruptedException {
        if (cutter.closesBefore(batch, r)) {
            cut(batch, ctx, out);
        }
        if (batch.isEmpty()) {
            ctx.timerService().registerProcessingTimeTimer(now + cutter.maxWaitMs()); // the idle check
        }
        batch.add(r, now);
        recordsAwaitingBatch++;
        if (cutter.isFull(batch) || batch.reachedRecordedCut()) {
            cut(batch, ctx, out);
        }
    }

    /** The idle check of the current key's partition: seal an idle batch, release a durable seal. */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<MiniBatch> out) throws Exception {
        long now = ctx.timerService().currentProcessingTime();
        if (emitter.waitingForCredit()) {
            // Fired while a batch waits for a credit (the wait yields to the mailbox): that batch
            // is cut but not out yet, so this partition's check comes after it.
            ctx.timerService().registerProcessingTimeTimer(now + SealProtocol.POLL_MS);
            return;
        }
        reporter.maybeReport(now, ctx);
        OpenBatch batch = load(ctx.getCurrentKey(), -1, now, ctx, out);
        if (batch.sealed()) {
            if (seals.isDurable(batch)) {
                release(batch, now, ctx, out);
            } else {
                ctx.timerService().registerProcessingTimeTimer(seals.nextPoll(batch, now));
            }
        } else if (!batch.isEmpty()) {
            boolean sealed = seals.sealIfIdle(batch, now);
            if (sealed && cutWriter != null) {
                cutWriter.send(ctx.getCurrentKey(), Cut.of(batch.partition(), batch.nextSeq(), batch.records()));
                batch.cutSent();
            }
            ctx.timerService().registerProcessingTimeTimer(sealed ? seals.nextPoll(batch, now) : seals.nextIdleCheck(batch, now));
        }
    }

    /** A mail: the cut log holds a cut of partition key {@code key}; its seal is durable now. */
    private void cutLogged(int key, Cut cut, long logOffset) {
        OpenBatch batch = batches.get(key);
        if (batch != null) {
            batch.cutLogged(cut.seq(), logOffset);
        }
    }

    /** The sealed batch's cut is durable: emit it, then cut the records held behind it. */
    private void release(OpenBatch batch, long now, Context ctx, Collector<MiniBatch> out) throws Exception {
        batch.unseal();
        cut(batch, ctx, out);
        var held = seals.takeHeld();
        recordsAwaitingBatch -= held.size(); // counted again as they join the open batch
        for (BatchRecord r : held) {
            append(batch, r, now, ctx, out);
        }
    }

    private void cut(OpenBatch batch, Context ctx, Collector<MiniBatch> out) throws InterruptedException {
        var records = batch.cut();
        recordsAwaitingBatch -= records.size();
        emitter.emit(batch.partition(), batch.takeSeq(), records, out);
    }

    private OpenBatch load(Integer key, int partition, long now, Context ctx, Collector<MiniBatch> out) throws Exception {
        OpenBatch batch = batches.get(key);
        if (batch == null) {
            batch = batches.load(key, partition, now);
            recordsAwaitingBatch += batch.size() + seals.heldCount();
            if (cutReader != null) {
                followRecordedCuts(batch, ctx, out);
            }
        }
        return batch;
    }

    /**
     * Reads the cuts a failed attempt recorded for the batch's partition since the restored state
     * (decisions/0018): this run cuts there too, at once if the restored batch already reaches one.
     */
    private void followRecordedCuts(OpenBatch batch, Context ctx, Collector<MiniBatch> out) throws InterruptedException {
        BatcherMeta meta = batch.meta;
        if (meta.cutsFrom < 0) {
            // New state starts where the job that creates it started reading: a later job graph
            // resumed from this state (a new build, a later start) still reads from here.
            batch.readCutsFrom(cutLog.startOf(meta.partition));
        }
        batch.follow(cutReader.recorded(meta.partition, meta.cutsFrom, meta.nextSeq));
        if (!batch.sealed() && batch.reachedRecordedCut()) {
            cut(batch, ctx, out);
        }
    }

    /**
     * Writes the open batches changed since the last call to keyed state; {@code selectKey} makes
     * a partition key the current one. Called before each checkpoint barrier.
     */
    void writeBack(Consumer<Integer> selectKey) throws Exception {
        batches.writeBack(selectKey);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
            cutLogStart.update(cutLog.lineageStart()); // one copy is enough: the union gives it to all
        } else {
            cutLogStart.clear();
        }
        seals.snapshotStarted(context.getCheckpointId());
        emitter.snapshotStarted();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        seals.checkpointCompleted(checkpointId);
    }

    @Override
    public void close() throws Exception {
        if (cutWriter != null) {
            cutWriter.close();
            cutReader.close();
        }
        seals.close();
        reporter.close();
        emitter.close();
        super.close();
    }
}
