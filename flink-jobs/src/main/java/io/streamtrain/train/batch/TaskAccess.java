package io.streamtrain.train.batch;

import io.streamtrain.ps.message.PullRequest;
import java.util.function.Consumer;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * What of its task the batcher's credit wait uses, from {@link MiniBatcherOperator}: the operator's
 * mailbox, a yield to it that keeps the current key, processing time, and the operator's own output
 * for pulls. Pulls bypass the timer context: a timer that runs during the wait's yield clears the
 * context of the timer that is waiting, which then could not emit through it.
 */
record TaskAccess(MailboxExecutor mailbox, ThrowingRunnable<InterruptedException> yieldToMailbox,
                  ProcessingTimeService time, String taskName, Consumer<PullRequest> pulls) {
    String threadName(String purpose) {
        return "batcher-" + purpose + " (" + taskName + ")";
    }
}
