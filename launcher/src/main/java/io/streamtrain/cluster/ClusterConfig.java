package io.streamtrain.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.apache.flink.configuration.ClusterOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.SchedulerExecutionMode;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;

/**
 * The Flink configuration of a local reactive-mode cluster: everything on 127.0.0.1, the adaptive
 * scheduler in reactive mode with short waits (a rescale is a restart from the latest checkpoint,
 * so waiting longer only delays it), and heartbeats short enough that a killed TaskManager is
 * noticed in seconds rather than Flink's default 50 s.
 */
public final class ClusterConfig {
    static final String LOG4J_FILE = "log4j2.properties";
    static final String HOST = "127.0.0.1";

    private ClusterConfig() {}

    /**
     * @param overrides any Flink keys the user gave ({@code -D}); they win over the defaults here,
     *     except the addresses and ports, which the cluster owns.
     */
    public static Configuration reactive(int slotsPerTaskManager, MemorySize taskManagerMemory, Configuration overrides)
            throws IOException {
        Configuration c = new Configuration();
        c.set(JobManagerOptions.SCHEDULER_MODE, SchedulerExecutionMode.REACTIVE);
        c.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Adaptive);
        c.set(JobManagerOptions.SCHEDULER_SUBMISSION_RESOURCE_STABILIZATION_TIMEOUT, Duration.ofSeconds(1));
        c.set(JobManagerOptions.SCHEDULER_EXECUTING_RESOURCE_STABILIZATION_TIMEOUT, Duration.ofSeconds(1));
        c.set(JobManagerOptions.SCHEDULER_EXECUTING_COOLDOWN_AFTER_RESCALING, Duration.ofSeconds(2));
        // Once the new resources are stable, Flink 2 waits for the next completed checkpoint before it
        // restarts at the new parallelism, for at most this long (by default the checkpoint interval
        // times (1 + rescale-trigger.max-checkpoint-failures): 2 s here). A checkpoint under backlog
        // takes 1-2 s on two cores, so the wait often ran out; a shorter one costs at most re-reading
        // the input since the last checkpoint, which the job replays exactly once anyway.
        c.set(JobManagerOptions.SCHEDULER_RESCALE_TRIGGER_MAX_DELAY, Duration.ofMillis(500));
        c.set(JobManagerOptions.TOTAL_PROCESS_MEMORY, MemorySize.parse("768m"));
        c.set(TaskManagerOptions.NUM_TASK_SLOTS, slotsPerTaskManager);
        c.set(TaskManagerOptions.TOTAL_PROCESS_MEMORY, taskManagerMemory);
        // Few small network buffers: bounded batches in flight, bounded gradient staleness (see TrainingRun).
        c.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("4kb"));
        c.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        // TaskManagers wait for the job's JobManager; reactive mode starts it with the job.
        c.set(TaskManagerOptions.REGISTRATION_TIMEOUT, Duration.ofDays(7)); // the RPC timer caps delays at ~248 days
        // A TaskManager that finds no JobManager yet (or a refusing one) retries within a second,
        // not after Flink's 10 s/30 s defaults: the time a new JobManager takes to get its slots.
        c.set(ClusterOptions.ERROR_REGISTRATION_DELAY, Duration.ofSeconds(1));
        c.set(ClusterOptions.REFUSED_REGISTRATION_DELAY, Duration.ofSeconds(1));
        c.set(ClusterOptions.MAX_REGISTRATION_TIMEOUT, Duration.ofSeconds(5));
        c.set(HeartbeatManagerOptions.HEARTBEAT_INTERVAL, Duration.ofSeconds(1));
        c.set(HeartbeatManagerOptions.HEARTBEAT_TIMEOUT, Duration.ofSeconds(10));
        c.set(HeartbeatManagerOptions.HEARTBEAT_RPC_FAILURE_THRESHOLD, 2);
        // The REST API serves a job's state from a cache this old (Flink's default: 3 s); `cluster
        // status` and the rescale timings read it, so a stale view would make rescales look 3 s longer.
        c.set(WebOptions.REFRESH_INTERVAL, Duration.ofMillis(250));
        // Job metrics (restarts, PS staleness) likewise come from a cache, refreshed every 10 s by default.
        c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofSeconds(1));
        c.addAll(overrides);

        c.set(JobManagerOptions.ADDRESS, HOST);
        c.set(JobManagerOptions.BIND_HOST, HOST);
        c.set(JobManagerOptions.PORT, freePort());
        c.set(RestOptions.ADDRESS, HOST);
        c.set(RestOptions.BIND_ADDRESS, HOST);
        c.set(RestOptions.PORT, freePort());
        c.set(TaskManagerOptions.HOST, HOST);
        c.set(TaskManagerOptions.BIND_HOST, HOST);
        return c;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        }
    }
}
