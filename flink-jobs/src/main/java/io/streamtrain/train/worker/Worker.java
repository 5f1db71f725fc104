package io.streamtrain.train.worker;

import io.streamtrain.model.BatchModel;
import io.streamtrain.model.Examples;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.row.DenseChunks;
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
 * push per PS key group: the sparse rows' and, for a deep model, the dense chunks' (each chunk
 * counts every example of the batch). Batches of a partition are trained strictly in sequence, so its pushes
 * reach each feedback partition in order, which the PS's duplicate check relies on.
 *
 * <p>Batches waiting for rows live on the heap and go into operator state at every snapshot
 * ({@link WaitingBatches}): an unaligned checkpoint's barrier overtakes rows in flight.
 */
public class Worker extends KeyedCoProcessFunction<Integer, MiniBatch, PulledRows, Push>
        implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<WindowReport> METRICS = new OutputTag<>("metrics") {};

    private final BatchModel model;
    /** The dense parameters' floats as the PS holds them: whole chunks. */
    private final int denseFloats;
    private final KeyGroups keyGroups;
    private final int validationWindow;
    private final long metricsEveryMs;

    private transient ValueState<Long> nextSeqState;
    private transient WaitingBatches waiting;
    private transient ProgressiveValidation validation;
    private transient long examples;
    private transient long lastMetricsAt;
    private transient Counter examplesCounter;
    private transient Meter examplesPerSecond;
    private transient long restoredCheckpoint = -1;
    private transient volatile long completedCheckpoint = -1;

    public Worker(BatchModel model, KeyGroups keyGroups, int validationWindow, long metricsEveryMs) {
        this.model = model;
        this.denseFloats = DenseChunks.count(model.denseLayout().size()) * DenseChunks.WIDTH;
        this.keyGroups = keyGroups;
        this.validationWindow = validationWindow;
        this.metricsEveryMs = metricsEveryMs;
    }

    @Override
    public void open(OpenContext openContext) {
        nextSeqState = getRuntimeContext().getState(new ValueStateDescriptor<>("worker-next-seq", Types.LONG));
        validation = new ProgressiveValidation(validationWindow);
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
        int sparseRows = 0;
        for (PulledRows r : assembly.rows) {
            for (long k : r.keys) {
                sparseRows += FeatureKey.isDense(k) ? 0 : 1;
            }
        }
        // The sparse rows one after the other in a table; the dense chunks in parameter order.
        float[] table = new float[sparseRows * width];
        float[] dense = new float[denseFloats];
        RowOffsets offsetOf = new RowOffsets(sparseRows);
        int at = 0;
        for (PulledRows r : assembly.rows) {
            int from = 0;
            for (long k : r.keys) {
                if (FeatureKey.isDense(k)) {
                    System.arraycopy(r.weights, from, dense, DenseChunks.chunkOf(k) * DenseChunks.WIDTH, DenseChunks.WIDTH);
                    from += DenseChunks.WIDTH;
                } else {
                    System.arraycopy(r.weights, from, table, at, width);
                    offsetOf.put(k, at);
                    at += width;
                    from += width;
                }
            }
        }
        int biasSlot = offsetOf.get(FeatureKey.BIAS);
        int[] slots = new int[b.keys.length];
        int[] fields = new int[b.keys.length];
        int[] occurrences = new int[sparseRows];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = offsetOf.get(b.keys[i]);
            fields[i] = FeatureKey.field(b.keys[i]);
            occurrences[slots[i] / width]++;
        }
        occurrences[biasSlot / width] = b.size();

        float[] grad = new float[table.length];
        float[] denseGrad = new float[dense.length];
        double[] predictions = new double[b.size()];
        model.gradients(new Examples(b.size(), b.starts, slots, fields, b.values, biasSlot), b.labels, table, dense,
                predictions, grad, denseGrad);
        for (int e = 0; e < b.size(); e++) {
            validation.add(predictions[e], b.labels[e] > 0.5f);
        }

        for (PulledRows r : assembly.rows) {
            float[] g = new float[r.weights.length];
            int[] occ = new int[r.keys.length];
            int to = 0;
            for (int i = 0; i < r.keys.length; i++) {
                long k = r.keys[i];
                if (FeatureKey.isDense(k)) {
                    System.arraycopy(denseGrad, DenseChunks.chunkOf(k) * DenseChunks.WIDTH, g, to, DenseChunks.WIDTH);
                    occ[i] = b.size(); // every example trains every dense parameter
                    to += DenseChunks.WIDTH;
                } else {
                    int row = offsetOf.get(k);
                    System.arraycopy(grad, row, g, to, width);
                    occ[i] = occurrences[row / width];
                    to += width;
                }
            }
            Push push = new Push(r.keyGroup, b.sourcePartition, b.batchSeq, b.firstOffset, r.pulledAt, r.keys, occ, r.versions, g);
            push.cutAt = b.cutAt;
            push.sentAt = b.sentAt;
            out.collect(push);
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
    public void close() throws Exception {
        model.close();
        super.close();
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
