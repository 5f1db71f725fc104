package io.streamtrain.train.run;

import io.streamtrain.contract.ModelStorage;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.kafka.common.TopicPartition;

/**
 * A real Flink cluster in this JVM (JobManager + one TaskManager with {@code slots} slots), REST on
 * a free loopback port. Everything it listens on (REST, the BLOB server, the TaskManager) binds
 * 127.0.0.1 unless the configuration names another address: a local run exposes nothing.
 */
public final class LocalFlink implements TrainingCluster {
    private static final String LOOPBACK = "127.0.0.1";
    private final MiniCluster cluster;
    private final int slots;
    private final FlinkApplication application;
    private JobID job;

    /** A local Flink for the training job, or for jobs given to {@link #submit}. */
    public LocalFlink(Configuration conf, int slots) throws Exception {
        this(conf, slots, FlinkApplication.TRAINING);
    }

    /** A local Flink whose {@link #start} runs {@code application}. */
    public LocalFlink(Configuration conf, int slots, FlinkApplication application) throws Exception {
        this.slots = slots;
        this.application = application;
        Configuration c = new Configuration(conf);
        setIfMissing(c, RestOptions.BIND_ADDRESS, LOOPBACK);
        setIfMissing(c, JobManagerOptions.BIND_HOST, LOOPBACK); // the BLOB server's too
        setIfMissing(c, TaskManagerOptions.BIND_HOST, LOOPBACK);
        setIfMissing(c, TaskManagerOptions.HOST, LOOPBACK);
        c.set(RestOptions.ADDRESS, LOOPBACK);
        c.set(RestOptions.BIND_PORT, "0");
        if (!c.contains(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL)) {
            // The REST API serves job metrics from a cache, refreshed every 10 s by default; the
            // end-of-input check reads the batchers' recordsAwaitingBatch through it (ProgressWatch).
            c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofSeconds(1));
        }
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(c)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .build());
        cluster.start();
    }

    private static <T> void setIfMissing(Configuration c, ConfigOption<T> option, T value) {
        if (!c.contains(option)) {
            c.set(option, value);
        }
    }

    @Override
    public void start(Configuration conf, Optional<Path> resumeFrom, Map<TopicPartition, Long> feedbackFrom) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        application.build(env, conf, feedbackFrom);
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName(application.jobName(conf));
        // Unclaimed state is ignored only where it is meant to be: the other source's state when
        // a backfill continues a streaming savepoint or the other way round (see Handover).
        submit(graph, resumeFrom, conf.get(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE));
    }

    /** Submits any job (the joiner's too), restored from {@code resumeFrom} when given. */
    public void submit(StreamGraph graph, Optional<Path> resumeFrom, boolean ignoreUnclaimedState) throws Exception {
        resumeFrom.ifPresent(p -> graph.setSavepointRestoreSettings(
                SavepointRestoreSettings.forPath(ModelStorage.uri(p).toString(), ignoreUnclaimedState)));
        job = cluster.submitJob(graph.getJobGraph()).get().getJobID();
    }

    @Override
    public JobID job() {
        return job;
    }

    @Override
    public URI restAddress() throws Exception {
        return cluster.getRestAddress().get();
    }

    @Override
    public JobStatus status() throws Exception {
        return cluster.getJobStatus(job).get();
    }

    @Override
    public void cancel() throws Exception {
        cluster.cancelJob(job).get();
        cluster.requestJobResult(job).get();
    }

    @Override
    public Throwable failureCause() throws Exception {
        return cluster.requestJobResult(job).get().getSerializedThrowable()
                .map(t -> (Throwable) t.deserializeError(getClass().getClassLoader()))
                .orElse(null);
    }

    @Override
    public long jobManagerRecoveries() {
        return 0;
    }

    @Override
    public String describe() {
        return "local Flink in this JVM, parallelism " + slots;
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
