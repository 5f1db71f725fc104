package io.streamtrain.train.run;

import java.net.URI;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

/** A real Flink cluster in this JVM (JobManager + one TaskManager with {@code slots} slots), REST on a free loopback port. */
public final class LocalFlink implements AutoCloseable {
    private final MiniCluster cluster;

    public LocalFlink(Configuration conf, int slots) throws Exception {
        Configuration c = new Configuration(conf);
        c.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        c.set(RestOptions.ADDRESS, "127.0.0.1");
        c.set(RestOptions.BIND_PORT, "0");
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(c)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .build());
        cluster.start();
    }

    public JobID submit(JobGraph job) throws Exception {
        return cluster.submitJob(job).get().getJobID();
    }

    public URI restAddress() throws Exception {
        return cluster.getRestAddress().get();
    }

    public JobStatus status(JobID job) throws Exception {
        return cluster.getJobStatus(job).get();
    }

    /** Cancels the job (its latest checkpoint is retained) and waits until it has stopped. */
    public void cancel(JobID job) throws Exception {
        cluster.cancelJob(job).get();
        cluster.requestJobResult(job).get();
    }

    public Throwable failureCause(JobID job) throws Exception {
        return cluster.requestJobResult(job).get().getSerializedThrowable()
                .map(t -> (Throwable) t.deserializeError(getClass().getClassLoader()))
                .orElse(null);
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
