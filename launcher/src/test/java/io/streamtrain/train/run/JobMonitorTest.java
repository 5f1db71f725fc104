package io.streamtrain.train.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
