package io.streamtrain.cli;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.train.run.JobMonitor;
import java.util.Locale;
import java.util.Optional;
import org.apache.flink.runtime.messages.webmonitor.ClusterOverview;

/** What {@code cluster status} prints: the cluster's JVMs, then what its JobManager says about slots and the job. */
final class ClusterStatus {
    private final String table;

    private ClusterStatus(String table) {
        this.table = table;
    }

    static ClusterStatus of(LocalCluster cluster) {
        StringBuilder t = new StringBuilder();
        t.append(String.format(Locale.ROOT, "cluster %s%n", cluster.layout().root()));
        t.append(String.format(Locale.ROOT, "%-16s %-8s %s%n", "process", "pid", "state"));
        boolean jobManager = false;
        for (LocalCluster.Member m : cluster.members()) {
            jobManager |= m.index() == 0 && m.alive();
            t.append(String.format(Locale.ROOT, "%-16s %-8s %s%n", m.name(), m.alive() ? Long.toString(m.pid()) : "-",
                    m.alive() ? "running" : "exited (log: " + cluster.layout().logFile(m.name()) + ")"));
        }
        if (!jobManager) {
            t.append("job: none running (the JobManager starts with the job: `streamtrain train --cluster ").append(cluster.layout().root())
                    .append(" …`, or `cluster start --resume` for the last one)");
            return new ClusterStatus(t.toString());
        }
        try {
            ClusterOverview overview = JobMonitor.clusterOverview(cluster.restAddress());
            t.append(String.format(Locale.ROOT, "web UI %s: %d TaskManager(s) registered, %d of %d slots in use%n",
                    cluster.restAddress(), overview.getNumTaskManagersConnected(),
                    overview.getNumSlotsTotal() - overview.getNumSlotsAvailable(), overview.getNumSlotsTotal()));
            Optional<JobMonitor> job = JobMonitor.runningJob(cluster.restAddress());
            if (job.isEmpty()) {
                t.append("job: not running yet");
            } else {
                try (JobMonitor j = job.get()) {
                    JobMonitor.Checkpoints cps = j.checkpoints();
                    t.append(String.format(Locale.ROOT, "job %s: %s, parallelism %d, restarts %d%n", j.job(),
                            j.state().map(Enum::name).orElse("?"), j.parallelism(), j.restarts()));
                    t.append(String.format(Locale.ROOT, "checkpoints: %d completed, latest %s (%d ms, %d bytes)",
                            cps.completed(), cps.latestPath(), cps.latestDurationMs(), cps.latestSizeBytes()));
                }
            }
        } catch (Exception e) {
            t.append("JobManager not answering at ").append(cluster.restAddress()).append(" yet (").append(e.getMessage()).append(")");
        }
        return new ClusterStatus(t.toString());
    }

    String table() {
        return table;
    }
}
