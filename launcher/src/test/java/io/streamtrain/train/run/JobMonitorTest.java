package io.streamtrain.train.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class JobMonitorTest {
    /** What a JobManager answered CI's rescale test while the adaptive scheduler restarted the job. */
    private static final String CACHE_CANCELLED = "{\"errors\":[\"Internal server error.\",\"<Exception on server side:\\n"
            + "java.util.concurrent.CancellationException\\n\\tat java.base/java.util.concurrent.CompletableFuture.cancel"
            + "(CompletableFuture.java:2478)\\n\\tat org.apache.flink.runtime.rest.handler.legacy.DefaultExecutionGraphCache"
            + ".getExecutionGraphInternal(DefaultExecutionGraphCache.java:98)\"]}";

    @Test
    void aStartingJobManagerAndALostExecutionGraphFetchAreRetried() {
        assertTrue(JobMonitor.isTransient(503, "{\"errors\":[\"Service temporarily unavailable due to an ongoing leader election.\"]}"));
        assertTrue(JobMonitor.isTransient(500, CACHE_CANCELLED));
        assertTrue(JobMonitor.isTransient(500, "{\"errors\":[\"Internal server error.\",\"java.util.concurrent.TimeoutException\"]}"));
    }

    @Test
    void otherServerErrorsAndClientErrorsAreNot() {
        assertFalse(JobMonitor.isTransient(500, "{\"errors\":[\"Internal server error.\",\"java.lang.NullPointerException\"]}"));
        assertFalse(JobMonitor.isTransient(400, "{\"errors\":[\"bad request\"]}"));
        assertFalse(JobMonitor.isTransient(404, "{\"errors\":[\"Job not found.\"]}"));
    }

    @Test
    void aJobTheJobManagerDoesNotKnowHasNoStateAndTheClusterItsSlots() throws Exception {
        try (LocalFlink flink = new LocalFlink(new Configuration(), 2);
                JobMonitor monitor = new JobMonitor(flink.restAddress(), new JobID())) {
            assertEquals(Optional.empty(), stateOnceAnswering(monitor));
            assertEquals(2, JobMonitor.clusterOverview(flink.restAddress()).getNumSlotsTotal());
            assertEquals(Optional.empty(), JobMonitor.runningJob(flink.restAddress()));
        }
    }

    /** The state, retrying what a run's loops retry: a fresh cluster's REST endpoint answers 503 until its leader is elected. */
    private static Optional<?> stateOnceAnswering(JobMonitor monitor) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return monitor.state();
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** A run's loops retry an IOException; a JobManager that is not there must not hang them. */
    @Test
    void anAbsentJobManagerIsAnIOExceptionSoon() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        URI rest = URI.create("http://localhost:" + port);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (JobMonitor monitor = new JobMonitor(rest, new JobID())) {
                assertThrows(IOException.class, monitor::state);
            }
        });
    }
}
