package io.streamtrain.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.train.run.JobMonitor;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * A standalone Flink session cluster of separate JVMs (a session JobManager and TaskManagers)
 * whose class path holds Flink's own modules only, so that whatever the job jar lacks fails the
 * job: where the job jar is deployed as the Kubernetes operator deploys a FlinkSessionJob.
 */
public final class SessionClusterFixture implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private final LocalCluster cluster;

    private SessionClusterFixture(LocalCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * Starts the session in {@code dir} with {@code taskManagers} TaskManagers of {@code slots} slots
     * each and waits until they registered; skipped (with how to build it) when the job jar is not built.
     */
    public static SessionClusterFixture start(Path dir, int taskManagers, int slots) throws Exception {
        return start(dir, taskManagers, slots, new Configuration());
    }

    /** {@link #start(Path, int, int)} with {@code conf} in the cluster's Flink configuration (e.g. its S3 settings). */
    public static SessionClusterFixture start(Path dir, int taskManagers, int slots, Configuration conf) throws Exception {
        JobJars.jobJar();
        String flinkOnly = JobJars.flinkOnlyClassPath();
        assertFalse(flinkOnly.contains("flink-connector-kafka") || flinkOnly.contains("kafka-clients") || flinkOnly.contains("flink-jobs"),
                "the cluster's class path must not have what the job jar brings: " + flinkOnly);
        LocalCluster cluster = LocalCluster.start(dir, 0, slots, MemorySize.parse("1g"), conf);
        SessionClusterFixture session = new SessionClusterFixture(cluster);
        try {
            Files.writeString(cluster.layout().classPathFile(), flinkOnly);
            cluster.startSession();
            for (int i = 0; i < taskManagers; i++) {
                cluster.addTaskManager();
            }
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (slots(cluster.restAddress()) < taskManagers * slots) {
                assertTrue(System.nanoTime() < deadline, "the session cluster in " + dir + " did not get its TaskManagers; see "
                        + cluster.layout().logDir());
                Thread.sleep(500);
            }
            return session;
        } catch (Exception | AssertionError e) {
            session.close();
            throw e;
        }
    }

    public URI restAddress() {
        return cluster.restAddress();
    }

    /** {@code HOST:PORT} of the JobManager's REST API, as {@code --jobmanager} takes it. */
    public String jobManager() {
        return restAddress().getHost() + ":" + restAddress().getPort();
    }

    /** Where the cluster's JVMs write their logs. */
    public Path logDir() {
        return cluster.layout().logDir();
    }

    public static Path jobJar() {
        return JobJars.jobJar();
    }

    /** The session cluster's task slots; 0 while its REST endpoint is not up yet. */
    private static int slots(URI rest) throws Exception {
        try {
            return JobMonitor.clusterOverview(rest).getNumSlotsTotal();
        } catch (IOException e) {
            return 0;
        }
    }

    @Override
    public void close() throws InterruptedException {
        cluster.stop(Duration.ofSeconds(30));
    }
}
