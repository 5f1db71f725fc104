package io.streamtrain.train.batch;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs the {@link MiniBatcher} with what only the operator has: before each checkpoint barrier it
 * has the batcher write its open batches to keyed state (only the operator can make each partition
 * key current outside of a record or a timer), and it lends the batcher's credit wait its mailbox.
 */
public final class MiniBatcherOperator extends KeyedProcessOperator<Integer, SourceRecord, MiniBatch> {
    private static final long serialVersionUID = 1L;

    private transient MailboxExecutor mailbox;

    public MiniBatcherOperator(MiniBatcher batcher) {
        super(batcher);
    }

    @Override
    public void setMailboxExecutor(MailboxExecutor mailboxExecutor) {
        super.setMailboxExecutor(mailboxExecutor);
        this.mailbox = mailboxExecutor;
    }

    @Override
    public void open() throws Exception {
        batcher().runsIn(new TaskAccess(mailbox, this::yieldToMailbox, getProcessingTimeService(),
                getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(),
                pull -> output.collect(BatchEmitter.PULLS, new StreamRecord<>(pull))));
        super.open();
    }

    /**
     * Runs one mail of this operator's mailbox, waiting for one. A mail may be a timer of another
     * partition key, which makes that key current: the key of the record or timer being handled is
     * made current again afterwards.
     */
    private void yieldToMailbox() throws InterruptedException {
        Object key = getCurrentKey();
        mailbox.yield();
        setCurrentKey(key);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        batcher().writeBack(this::setCurrentKey);
    }

    private MiniBatcher batcher() {
        return (MiniBatcher) userFunction;
    }
}
