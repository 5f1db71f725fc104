package io.streamtrain.train.batch;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PullRequest;
import java.io.Serializable;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Sends a cut batch on: its pulls, one per PS key group, to {@link #PULLS}, and the batch itself to
 * the worker, once flow control ({@link BatchCredits}) has a credit for it.
 */
final class BatchEmitter implements Serializable {
    private static final long serialVersionUID = 1L;
    static final OutputTag<PullRequest> PULLS = new OutputTag<>("pulls") {};

    private final KeyGroups keyGroups;
    private final long[] denseKeys;
    private final BatchCredits credits;
    private transient Counter batchesEmitted;
    private transient Consumer<PullRequest> pulls;

    BatchEmitter(KeyGroups keyGroups, long[] denseKeys, BatchCredits credits) {
        this.keyGroups = keyGroups;
        this.denseKeys = denseKeys;
        this.credits = credits;
    }

    void open(MetricGroup batcherGroup, TaskAccess task) {
        batchesEmitted = batcherGroup.counter("batchesEmitted");
        pulls = task.pulls();
        credits.open(batcherGroup, task.mailbox(), task.yieldToMailbox(), task.time(), task.threadName("credits"));
    }

    /** A batch is waiting for a credit, yielding to the mailbox meanwhile. */
    boolean waitingForCredit() {
        return credits.waiting();
    }

    /** The batcher's barrier has passed: see {@link BatchCredits#resume}. */
    void snapshotStarted() {
        credits.resume();
    }

    void emit(int partition, long seq, List<BatchRecord> records, Collector<MiniBatch> out) throws InterruptedException {
        long cutAt = System.currentTimeMillis();
        BatchAssembler.Assembled assembled = BatchAssembler.assemble(keyGroups, denseKeys, partition, seq, records);
        credits.awaitCredit();
        assembled.batch().cutAt = cutAt;
        assembled.batch().sentAt = System.currentTimeMillis();
        for (PullRequest pull : assembled.pulls()) {
            pulls.accept(pull);
        }
        credits.sent(partition, seq, assembled.pulls().size());
        out.collect(assembled.batch());
        batchesEmitted.inc();
    }

    void close() {
        credits.close();
    }
}
