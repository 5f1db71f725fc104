package io.streamtrain.train.run;

import org.apache.flink.api.common.JobStatus;

/**
 * A job that ended while a run waited on it: says what ended and how (for a failure: after how
 * many restarts, the restart strategy having given up), with Flink's failure as the cause, whose
 * root the launcher prints.
 */
public final class JobEndedException extends IllegalStateException {
    private JobEndedException(String message, Throwable cause) {
        super(message, cause);
    }

    /** {@code what}: the run's job in words, e.g. "training". */
    public static JobEndedException of(String what, JobStatus status, TrainingCluster flink) throws Exception {
        return new JobEndedException(switch (status) {
            case FAILED -> what + " failed" + afterRestarts(flink);
            case CANCELED -> what + " was cancelled from outside this run";
            default -> what + " ended " + status;
        }, flink.failureCause());
    }

    private static String afterRestarts(TrainingCluster flink) {
        try (JobMonitor monitor = flink.monitor()) {
            long restarts = monitor.restarts() + flink.jobManagerRecoveries();
            return restarts > 0 ? " after " + restarts + " restart" + (restarts == 1 ? "" : "s") : "";
        } catch (Exception e) {
            return ""; // the count is a detail; the failure is what matters
        }
    }
}
