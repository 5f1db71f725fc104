package io.streamtrain.cli;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.cluster.Signal;
import io.streamtrain.train.run.Prometheus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code streamtrain cluster …}: a standalone Flink cluster of separate JVMs on 127.0.0.1, in reactive mode. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "A standalone Flink cluster on 127.0.0.1 made of separate JVMs (Flink's own entry points, from this jar), "
                + "with the adaptive scheduler in reactive mode: a running job uses every slot, and rescales from its "
                + "latest checkpoint when TaskManagers come or go. Flink runs reactive mode only in application clusters, "
                + "so the JobManager belongs to the job: `streamtrain train --cluster DIR` starts it with the job.",
        subcommands = {
            ClusterCommand.Start.class,
            ClusterCommand.AddTm.class,
            ClusterCommand.KillTm.class,
            ClusterCommand.Status.class,
            ClusterCommand.Stop.class
        })
public final class ClusterCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code --dir}, shared by every subcommand. */
    static final class Dir {
        @Option(names = "--dir", defaultValue = ".streamtrain/cluster",
                description = "The cluster's directory: configuration, pids, logs, its job (default: ${DEFAULT-VALUE}).")
        Path dir;
    }

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "Starts the cluster's TaskManagers; with --resume also a JobManager that resumes the "
                    + "cluster's last job from its newest retained checkpoint (after the JobManager died).")
    static final class Start implements Callable<Integer> {
        @Mixin
        Dir dir;

        @Option(names = "--taskmanagers", defaultValue = "1", description = "TaskManager JVMs (default: ${DEFAULT-VALUE}).")
        int taskManagers;

        @Option(names = "--slots", defaultValue = "1", description = "Slots per TaskManager (default: ${DEFAULT-VALUE}).")
        int slots;

        @Option(names = "--tm-memory", defaultValue = "1280m", description = "Process memory per TaskManager (default: ${DEFAULT-VALUE}).")
        String tmMemory;

        @Option(names = "--resume", description = "Resume the cluster's last job: start its JobManager from the newest retained checkpoint; starts no new TaskManagers when some are running.")
        boolean resume;

        @Option(names = "--prometheus-port", defaultValue = Prometheus.DEFAULT_PORTS, paramLabel = "PORT|FROM-TO|off",
                description = "Flink's Prometheus reporter (metrics.reporter.prom.port): the first free port of the range serves /metrics on 127.0.0.1 (-Dmetrics.reporter.prom.host=0.0.0.0: on every interface; default: ${DEFAULT-VALUE}; off: no reporter).")
        String prometheusPort;

        @Option(names = "-D", paramLabel = "KEY=VALUE", description = "Any Flink configuration key for the cluster.")
        Map<String, String> extra = new LinkedHashMap<>();

        @Override
        public Integer call() throws Exception {
            if (resume) {
                LocalCluster cluster = LocalCluster.open(dir.dir);
                boolean anyTaskManager = cluster.members().stream().anyMatch(m -> m.alive() && m.index() > 0);
                for (int i = 0; !anyTaskManager && i < taskManagers; i++) {
                    System.err.println("cluster: started taskmanager-" + cluster.addTaskManager());
                }
                Path from = cluster.jobSpec().flatMap(LocalCluster::latestCheckpoint).orElse(null);
                JobID job = cluster.resumeJob();
                System.err.println("cluster: JobManager started with job " + job + (from == null ? " (no checkpoint: from the start)" : " from " + from));
                System.out.println(ClusterStatus.of(cluster).table());
                return 0;
            }
            LocalCluster cluster = LocalCluster.start(dir.dir, taskManagers, slots, MemorySize.parse(tmMemory),
                    Prometheus.enable(Configuration.fromMap(extra), prometheusPort));
            System.err.println("cluster: started " + taskManagers + " TaskManager(s) with " + slots + " slot(s) each in " + cluster.layout().root());
            System.err.println("cluster: run a job with `streamtrain train --cluster " + dir.dir + " …`; web UI at " + cluster.restAddress() + " once it runs");
            System.out.println(ClusterStatus.of(cluster).table());
            return 0;
        }
    }

    @Command(name = "add-tm", mixinStandardHelpOptions = true, description = "Starts one more TaskManager; a running job scales up to use its slots.")
    static final class AddTm implements Callable<Integer> {
        @Mixin
        Dir dir;

        @Override
        public Integer call() throws Exception {
            System.out.println("cluster: started taskmanager-" + LocalCluster.open(dir.dir).addTaskManager());
            return 0;
        }
    }

    @Command(name = "kill-tm", mixinStandardHelpOptions = true, description = "Stops a TaskManager; a running job recovers on the remaining slots.")
    static final class KillTm implements Callable<Integer> {
        @Mixin
        Dir dir;

        @Option(names = "--index", description = "Which TaskManager (default: the newest running one).")
        Integer index;

        @Option(names = "--signal", defaultValue = "KILL", description = "KILL (a crash) or TERM (orderly shutdown) (default: ${DEFAULT-VALUE}).")
        Signal signal;

        @Override
        public Integer call() throws InterruptedException {
            int killed = LocalCluster.open(dir.dir).killTaskManager(index == null ? OptionalInt.empty() : OptionalInt.of(index), signal);
            System.out.println("cluster: sent " + signal + " to taskmanager-" + killed + "; it has exited");
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "The cluster's JVMs, slots, running job, its parallelism and last checkpoint.")
    static final class Status implements Callable<Integer> {
        @Mixin
        Dir dir;

        @Override
        public Integer call() {
            System.out.println(ClusterStatus.of(LocalCluster.open(dir.dir)).table());
            return 0;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stops every process of the cluster (checkpoints stay where they are).")
    static final class Stop implements Callable<Integer> {
        @Mixin
        Dir dir;

        @Override
        public Integer call() throws Exception {
            LocalCluster cluster = LocalCluster.open(dir.dir);
            long alive = cluster.members().stream().filter(LocalCluster.Member::alive).count();
            cluster.stop(Duration.ofSeconds(15));
            System.out.println("cluster: stopped " + alive + " process(es) in " + cluster.layout().root());
            return 0;
        }
    }
}
