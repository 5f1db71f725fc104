package io.streamtrain.train.batch;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * What of its task the batcher's credit wait uses, from {@link MiniBatcherOperator}: the operator's
 * mailbox, a yield to it that keeps the current key, and processing time.
 */
record TaskAccess(MailboxExecutor mailbox, ThrowingRunnable<InterruptedException> yieldToMailbox,
                  ProcessingTimeService time, String taskName) {
    String threadName(String purpose) {
        return "batcher-" + purpose + " (" + taskName + ")";
    }
}
