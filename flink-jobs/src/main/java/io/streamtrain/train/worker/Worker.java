package io.streamtrain.train.worker;

import io.streamtrain.model.Model;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.train.batch.MiniBatch;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.MeterView;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Keyed by source partition: joins each mini-batch with its pulled rows, scores every example
 * before learning from it (progressive validation), and emits the batch's summed gradients as one
 * push per PS key group. Batches of a partition are trained strictly in sequence, so its pushes
 * reach each feedback partition in order, which the PS's duplicate check relies on.
 *
 * <p>Batches waiting for rows live on the heap and go into operator state at every snapshot
 * ({@link WaitingBatches}): an unaligned checkpoint's barrier overtakes rows in flight.
 */
public class Worker extends KeyedCoProcessFunction<Integer, MiniBatch, PulledRows, Push>
        implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<WindowReport> METRICS = new OutputTag<>("metrics") {};

    private final Model model;
    private final KeyGroups keyGroups;
    private final int validationWindow;
    private final long metricsEveryMs;

    private transient ValueState<Long> nextSeqState;
    private transient WaitingBatches waiting;
    private transient ProgressiveValidation validation;
    private transient double[] scratch;
    private transient long examples;
    private transient long lastMetricsAt;
    private transient Counter examplesCounter;
    private transient Meter examplesPerSecond;
    private transient long restoredCheckpoint = -1;
    private transient volatile long completedCheckpoint = -1;

    public Worker(Model model, KeyGroups keyGroups, int validationWindow, long metricsEveryMs) {
        this.model = model;
        this.keyGroups = keyGroups;
        this.validationWindow = validationWindow;
        this.metricsEveryMs = metricsEveryMs;
    }

    @Override
    public void open(OpenContext openContext) {
        nextSeqState = getRuntimeContext().getState(new ValueStateDescriptor<>("worker-next-seq", Types.LONG));
        validation = new ProgressiveValidation(validationWindow);
        scratch = new double[model.width()];
        var group = getRuntimeContext().getMetricGroup().addGroup("worker");
        examplesCounter = group.counter("examplesTrained");
        examplesPerSecond = group.meter("examplesPerSecond", new MeterView(examplesCounter));
        group.gauge("windowAuc", (Gauge<Double>) validation::auc);
        group.gauge("windowLogloss", (Gauge<Double>) validation::logloss);
        group.gauge("windowBaseLogloss", (Gauge<Double>) validation::baseLogloss);
        int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        group.gauge("parallelism", (Gauge<Integer>) () -> parallelism);
    }

    @Override
    public void processElement1(MiniBatch batch, Context ctx, Collector<Push> out) throws Exception {
        waiting.assembly(ctx.getCurrentKey(), batch.batchSeq).batch = batch;
        drain(ctx, out);
    }

    @Override
    public void processElement2(PulledRows rows, Context ctx, Collector<Push> out) throws Exception {
        waiting.assembly(ctx.getCurrentKey(), rows.batchSeq).rows.add(rows);
        drain(ctx, out);
    }

    /** Trains every complete batch that is next in its partition's sequence. */
    private void drain(Context ctx, Collector<Push> out) throws Exception {
        TreeMap<Long, BatchAssembly> queue = waiting.queue(ctx.getCurrentKey());
        // Most rows arrive for a batch that still misses others: the state is read only once the
        // first waiting batch is complete (a RocksDB get per pull answer was 7% of the worker thread).
        if (!queue.firstEntry().getValue().complete()) {
            return;
        }
        Long stored = nextSeqState.value();
        long next = stored == null ? 0 : stored;
        boolean advanced = false;
        while (!queue.isEmpty() && queue.firstKey() == next && queue.firstEntry().getValue().complete()) {
            train(queue.pollFirstEntry().getValue(), ctx, out);
            next++;
            advanced = true;
        }
        if (!queue.isEmpty() && queue.firstKey() < next) {
            throw new IllegalStateException("batch " + queue.firstKey() + " arrived after batch " + (next - 1) + " was trained");
        }
        if (advanced) {
            nextSeqState.update(next);
        }
    }

    private void train(BatchAssembly assembly, Context ctx, Collector<Push> out) {
        MiniBatch b = assembly.batch;
        int width = model.width();
        int rowCount = 0;
        for (PulledRows r : assembly.rows) {
            rowCount += r.keys.length;
        }
        float[] table = new float[rowCount * width];
        RowOffsets offsetOf = new RowOffsets(rowCount);
        int at = 0;
        for (PulledRows r : assembly.rows) {
            System.arraycopy(r.weights, 0, table, at, r.weights.length);
            for (long k : r.keys) {
                offsetOf.put(k, at);
                at += width;
            }
        }
        int biasSlot = offsetOf.get(FeatureKey.BIAS);
        int[] slots = new int[b.keys.length];
        int[] occurrences = new int[rowCount];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = offsetOf.get(b.keys[i]);
            occurrences[slots[i] / width]++;
        }
        occurrences[biasSlot / width] = b.size();

        float[] grad = new float[table.length];
        for (int e = 0; e < b.size(); e++) {
            int from = b.starts[e];
            int to = b.starts[e + 1];
            double p = Model.sigmoid(model.logit(table, biasSlot, slots, b.values, from, to, scratch));
            validation.add(p, b.labels[e] > 0.5f);
            model.backward(table, biasSlot, slots, b.values, from, to, p - b.labels[e], scratch, grad);
        }

        at = 0;
        for (PulledRows r : assembly.rows) {
            int n = r.keys.length;
            float[] g = new float[n * width];
            System.arraycopy(grad, at, g, 0, g.length);
            int[] occ = new int[n];
            System.arraycopy(occurrences, at / width, occ, 0, n);
            at += g.length;
            out.collect(new Push(r.keyGroup, b.sourcePartition, b.batchSeq, b.firstOffset, r.pulledAt, r.keys, occ, r.versions, g));
        }
        examples += b.size();
        examplesCounter.inc(b.size());
        maybeReportMetrics(ctx);
    }

    private void maybeReportMetrics(Context ctx) {
        long now = System.currentTimeMillis();
        if (now - lastMetricsAt < metricsEveryMs) {
            return;
        }
        lastMetricsAt = now;
        WindowReport report = new WindowReport();
        report.time = now;
        report.subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        report.attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
        report.examples = examples;
        report.windowExamples = validation.size();
        report.windowAuc = validation.auc();
        report.windowLogloss = validation.logloss();
        report.windowPositives = validation.positives();
        report.parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        report.restoredCheckpoint = restoredCheckpoint;
        report.completedCheckpoint = completedCheckpoint;
        ctx.output(METRICS, report);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        waiting.snapshot();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        restoredCheckpoint = context.getRestoredCheckpointId().orElse(-1L);
        waiting = new WaitingBatches(keyGroups);
        waiting.initialize(context.getOperatorStateStore(), getRuntimeContext(), context.isRestored());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        completedCheckpoint = Math.max(completedCheckpoint, checkpointId);
    }
}
