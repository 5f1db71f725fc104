package io.streamtrain.train.run;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a training run's job runs: {@link LocalFlink} (a MiniCluster in this JVM) or
 * {@link StandaloneTraining} (a local cluster of JobManager and TaskManager processes in reactive
 * mode). {@link TrainingRun} drives either the same way.
 */
public interface TrainingCluster extends AutoCloseable {
    /** Starts the job, restored from {@code resumeFrom} when given; {@code job} is its full Flink configuration. */
    void start(Configuration job, Optional<Path> resumeFrom, Map<TopicPartition, Long> feedbackFrom) throws Exception;

    /** The job now running (a recovered JobManager runs it under a new id). */
    JobID job();

    URI restAddress() throws Exception;

    /** The job's status, after recovering what this cluster recovers by itself (a lost JobManager). */
    JobStatus status() throws Exception;

    Throwable failureCause() throws Exception;

    /** Cancels the job (its latest checkpoint is retained) and waits until it has stopped. */
    void cancel() throws Exception;

    /** JobManagers this run lost and replaced. */
    long jobManagerRecoveries();

    /** One line for the progress log: what runs where. */
    String describe();

    /** A monitor of the job now running, with its own REST client: the caller closes it. */
    default JobMonitor monitor() throws Exception {
        return new JobMonitor(restAddress(), job());
    }
}
