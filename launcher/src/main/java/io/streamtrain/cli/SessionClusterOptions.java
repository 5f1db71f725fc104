package io.streamtrain.cli;

import io.streamtrain.train.run.SessionTarget;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where a job command submits its job instead of a Flink inside this process: an existing session cluster (a picocli mixin). */
final class SessionClusterOptions {
    @Option(names = "--jobmanager", paramLabel = "HOST:PORT",
            description = "Submit the job to the Flink session cluster whose JobManager REST API is at HOST:PORT (the job jar is uploaded"
                    + " over REST) instead of running a Flink inside this process; progress and the summary are read the same way,"
                    + " so the checkpoint directory must be one this process can read too.")
    String jobManager;

    @Option(names = "--job-jar", paramLabel = "JAR",
            description = "With --jobmanager: the job jar to upload (default: the build's flink-jobs/target/streamtrain-job.jar).")
    Path jobJar;

    /** The session cluster to submit to, or null to run in this process. */
    SessionTarget target() {
        if (jobManager == null) {
            if (jobJar != null) {
                throw new IllegalArgumentException("--job-jar goes with --jobmanager");
            }
            return null;
        }
        return SessionTarget.of(jobManager, jobJar);
    }
}
