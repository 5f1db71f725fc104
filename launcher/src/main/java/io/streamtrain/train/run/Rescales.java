package io.streamtrain.train.run;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** Waits for a reactive cluster's job to run at a given parallelism: how rescales and recoveries are timed. */
public final class Rescales {
    private static final long POLL_MS = 100;

    private Rescales() {}

    /**
     * Time until the cluster's job runs every task at {@code parallelism} (not merely scheduled),
     * whichever JobManager runs it; fails after {@code timeout}.
     */
    public static Duration awaitRunningAt(URI rest, int parallelism, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Optional<JobMonitor> job = JobMonitor.runningJob(rest);
                try {
                    if (job.isPresent() && job.get().parallelism() == parallelism && job.get().allTasksRunning()) {
                        return Duration.ofNanos(System.nanoTime() - start);
                    }
                } finally {
                    job.ifPresent(JobMonitor::close);
                }
            } catch (Exception e) {
                // the JobManager is not answering: starting, or just lost
            }
            Thread.sleep(POLL_MS);
        }
        throw new IllegalStateException("the job did not run at parallelism " + parallelism + " within " + timeout);
    }
}
