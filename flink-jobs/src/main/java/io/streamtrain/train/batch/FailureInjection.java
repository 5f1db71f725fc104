package io.streamtrain.train.batch;

import java.io.Serializable;

/**
 * {@code --inject-failure-after N}: the first attempt of each batcher subtask fails after its N-th
 * record, and the job restarts from its latest checkpoint (the exactly-once tests' failure).
 */
final class FailureInjection implements Serializable {
    private static final long serialVersionUID = 1L;

    private final long afterRecords;
    private transient long seen;

    /** {@code afterRecords} 0 or less: never. */
    FailureInjection(long afterRecords) {
        this.afterRecords = afterRecords;
    }

    void count(int attemptNumber) {
        if (afterRecords > 0 && attemptNumber == 0 && ++seen == afterRecords) {
            throw new InjectedFailure("injected failure after " + afterRecords + " records (--inject-failure-after)");
        }
    }

    /** What --inject-failure-after throws. */
    public static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }
}
