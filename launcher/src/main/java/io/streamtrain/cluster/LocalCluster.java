package io.streamtrain.cluster;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.contract.LatestCheckpoint;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.clusterframework.BootstrapTools;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone Flink cluster on this machine, made of separate JVMs started from Flink's own entry
 * points: TaskManagers ({@code TaskManagerRunner}) and, once a job is given, its JobManager
 * ({@code StandaloneApplicationClusterEntryPoint}). Flink allows reactive mode only in application
 * clusters, so the JobManager is the job's own and lives as long as the job; the TaskManagers stay
 * and serve whichever job's JobManager comes next ({@link #startSession} starts a session
 * JobManager instead, which takes jobs over REST). Everything it knows lives in its directory, so
 * any later command (or another process) can open it again.
 */
public final class LocalCluster {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);
    static final String JOBMANAGER = "jobmanager";
    private static final String TASKMANAGER = "taskmanager-";
    private static final String TASKMANAGER_MAIN = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    /** How long a TaskManager may take to exit after TERM before it gets KILL. */
    static final Duration TERM_GRACE = Duration.ofSeconds(30);
    /** Pid-directory markers: a member stopped on purpose, or a crashed TaskManager already replaced. */
    private static final String STOPPED = ".stopped";
    private static final String REPLACED = ".replaced";
    private static final String JOBMANAGER_MAIN = "org.apache.flink.container.entrypoint.StandaloneApplicationClusterEntryPoint";
    private static final String SESSION_JOBMANAGER_MAIN = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    /** The job the JobManager runs: reads the training configuration from the cluster configuration. */
    private static final String TRAINING_MAIN = "io.streamtrain.train.TrainingApplication";

    private final ClusterLayout layout;
    private final Configuration conf;

    private LocalCluster(ClusterLayout layout, Configuration conf) {
        this.layout = layout;
        this.conf = conf;
    }

    /** Writes a new cluster's configuration into {@code dir} and starts its TaskManagers. */
    public static LocalCluster start(Path dir, int taskManagers, int slots, MemorySize taskManagerMemory, Configuration overrides)
            throws IOException {
        ClusterLayout layout = new ClusterLayout(dir);
        if (Files.isRegularFile(layout.confDir().resolve(GlobalConfiguration.FLINK_CONF_FILENAME))) {
            LocalCluster existing = open(dir);
            if (!existing.members().stream().filter(Member::alive).toList().isEmpty()) {
                throw new IllegalStateException("a cluster is already running in " + layout.root()
                        + "; see `streamtrain cluster status --dir " + dir + "` or stop it first");
            }
        }
        Configuration conf = ClusterConfig.reactive(slots, taskManagerMemory, overrides);
        requireWorkableTaskManagerMemory(conf, taskManagerMemory);
        forgetEarlierProcesses(layout);
        Files.createDirectories(layout.confDir());
        BootstrapTools.writeConfiguration(conf, layout.confDir().resolve(GlobalConfiguration.FLINK_CONF_FILENAME).toFile());
        try (InputStream log4j = LocalCluster.class.getResourceAsStream("/cluster-log4j2.properties")) {
            Files.copy(log4j, layout.confDir().resolve(ClusterConfig.LOG4J_FILE), StandardCopyOption.REPLACE_EXISTING);
        }
        // Once per start, so that a rebuilt jar's library replaces an old one.
        NativeLibraries.unpackRocksDb(layout);
        LocalCluster cluster = new LocalCluster(layout, conf);
        for (int i = 0; i < taskManagers; i++) {
            cluster.addTaskManager();
        }
        return cluster;
    }

    /** A new cluster in an old directory: the pid files and markers of its dead processes are not this cluster's. */
    private static void forgetEarlierProcesses(ClusterLayout layout) throws IOException {
        if (Files.isDirectory(layout.pidDir())) {
            try (Stream<Path> files = Files.list(layout.pidDir())) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    /** Fails before anything starts when Flink's fixed memory components do not fit the TaskManager size. */
    private static void requireWorkableTaskManagerMemory(Configuration conf, MemorySize taskManagerMemory) {
        try {
            TaskExecutorProcessUtils.processSpecFromConfig(conf);
        } catch (IllegalConfigurationException e) {
            throw new IllegalArgumentException("TaskManager memory " + taskManagerMemory.toHumanReadableString()
                    + " is too small for Flink's fixed memory components; use at least 1g. " + e.getMessage(), e);
        }
    }

    public static LocalCluster open(Path dir) {
        ClusterLayout layout = new ClusterLayout(dir);
        if (!Files.isRegularFile(layout.confDir().resolve(GlobalConfiguration.FLINK_CONF_FILENAME))) {
            throw new IllegalArgumentException("no cluster in " + layout.root() + " (start one with `streamtrain cluster start --dir " + dir + "`)");
        }
        return new LocalCluster(layout, GlobalConfiguration.loadConfiguration(layout.confDir().toString()));
    }

    public ClusterLayout layout() {
        return layout;
    }

    public URI restAddress() {
        return URI.create("http://" + conf.get(RestOptions.ADDRESS) + ":" + conf.get(RestOptions.PORT));
    }

    public int slotsPerTaskManager() {
        return conf.get(TaskManagerOptions.NUM_TASK_SLOTS);
    }

    /** Starts one more TaskManager JVM; returns its index. */
    public int addTaskManager() throws IOException {
        int index = members().stream().filter(m -> m.name().startsWith(TASKMANAGER))
                .mapToInt(Member::index).max().orElse(0) + 1;
        String name = TASKMANAGER + index;
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(conf);
        List<String> jvm = new ArrayList<>(split(ProcessMemoryUtils.generateJvmParametersStr(spec)));
        List<String> args = new ArrayList<>(List.of("--configDir", layout.confDir().toString()));
        args.addAll(split(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec)));
        args.add("-D" + TaskManagerOptions.TASK_MANAGER_RESOURCE_ID.key() + "=" + name);
        if (!NativeLibraries.rocksDbUnpacked(layout)) {
            NativeLibraries.unpackRocksDb(layout);
        }
        jvm.add("-Djava.library.path=" + NativeLibraries.libraryPath(layout.libDir()));
        ProcessHandle p = FlinkJvm.start(layout, name, jvm, TASKMANAGER_MAIN, args);
        LOG.info("started {} (pid {})", name, p.pid());
        return index;
    }

    /**
     * Stops a TaskManager (the newest when no index is given) and waits until its process has
     * exited, so that the next call picks another one; returns its index. A TaskManager that has
     * not exited {@link #TERM_GRACE} after TERM gets KILL.
     */
    public int killTaskManager(OptionalInt index, Signal signal) throws InterruptedException {
        List<Member> alive = members().stream().filter(m -> m.name().startsWith(TASKMANAGER) && m.alive()).toList();
        Member victim = index.isPresent()
                ? alive.stream().filter(m -> m.index() == index.getAsInt()).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no running taskmanager-" + index.getAsInt() + " in " + layout.root()))
                : alive.stream().reduce((a, b) -> b.index() > a.index() ? b : a)
                        .orElseThrow(() -> new IllegalStateException("no running TaskManager in " + layout.root()));
        ProcessHandle process = victim.process().orElseThrow();
        mark(victim.name(), STOPPED); // before the signal, so that supervision never takes it for a crash
        signal.send(process);
        LOG.info("sent {} to {} (pid {})", signal, victim.name(), victim.pid());
        if (!awaitExit(process, TERM_GRACE)) {
            LOG.warn("{} (pid {}) did not exit within {} of {}; sending KILL", victim.name(), victim.pid(), TERM_GRACE, signal);
            Signal.KILL.send(process);
            awaitExit(process, TERM_GRACE);
        }
        return victim.index();
    }

    /**
     * Starts the JobManager with the training job. {@code job} is the job's configuration; it is
     * kept in the cluster directory so that {@link #resumeJob} can start it again.
     */
    public JobID startJob(Configuration job, Optional<Path> recoverFrom) throws IOException {
        if (jobManager().isPresent()) {
            throw new IllegalStateException("the cluster in " + layout.root() + " already runs a job (reactive mode runs one per cluster);"
                    + " stop it first or use another --dir");
        }
        Files.createDirectories(layout.jobSpecDir());
        BootstrapTools.writeConfiguration(job, layout.jobSpecDir().resolve(GlobalConfiguration.FLINK_CONF_FILENAME).toFile());
        Configuration jm = new Configuration(conf);
        jm.addAll(job);
        recoverFrom.ifPresent(path -> jm.set(StateRecoveryOptions.SAVEPOINT_PATH, ModelStorage.uri(path).toString()));
        Files.createDirectories(layout.jobManagerConfDir());
        BootstrapTools.writeConfiguration(jm, layout.jobManagerConfDir().resolve(GlobalConfiguration.FLINK_CONF_FILENAME).toFile());

        JobID id = new JobID();
        ProcessHandle p = startJobManager(jm, JOBMANAGER_MAIN, List.of("--job-classname", TRAINING_MAIN, "--job-id", id.toHexString()));
        LOG.info("started the JobManager (pid {}) with job {}{}", p.pid(), id, recoverFrom.map(r -> " from " + r).orElse(""));
        return id;
    }

    /**
     * Starts a session JobManager instead of a job's own: jobs then come over the REST API (a job
     * jar to {@code /jars/upload}, then {@code /jars/<id>/run}), as on a session cluster. Reactive
     * mode is for application clusters only, so the session's scheduler is the adaptive one alone.
     */
    public void startSession() throws IOException {
        if (jobManager().isPresent()) {
            throw new IllegalStateException("the cluster in " + layout.root() + " already has a JobManager");
        }
        Configuration jm = new Configuration(conf);
        jm.removeConfig(JobManagerOptions.SCHEDULER_MODE);
        Files.createDirectories(layout.jobManagerConfDir());
        BootstrapTools.writeConfiguration(jm, layout.jobManagerConfDir().resolve(GlobalConfiguration.FLINK_CONF_FILENAME).toFile());
        ProcessHandle p = startJobManager(jm, SESSION_JOBMANAGER_MAIN, List.of());
        LOG.info("started a session JobManager (pid {})", p.pid());
    }

    /** A JobManager JVM sized from {@code jm}, which is written to the JobManager's configuration directory. */
    private ProcessHandle startJobManager(Configuration jm, String main, List<String> mainArgs) throws IOException {
        JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfig(jm);
        List<String> jvm = split(JobManagerProcessUtils.generateJvmParametersStr(spec, jm));
        List<String> args = new ArrayList<>(List.of("--configDir", layout.jobManagerConfDir().toString()));
        args.addAll(mainArgs);
        args.addAll(split(JobManagerProcessUtils.generateDynamicConfigsStr(spec)));
        return FlinkJvm.start(layout, JOBMANAGER, jvm, main, args);
    }

    /** The kept job's configuration, if a job was ever started on this cluster. */
    public Optional<Configuration> jobSpec() {
        return Files.isRegularFile(layout.jobSpecDir().resolve(GlobalConfiguration.FLINK_CONF_FILENAME))
                ? Optional.of(GlobalConfiguration.loadConfiguration(layout.jobSpecDir().toString()))
                : Optional.empty();
    }

    /**
     * Starts a new JobManager for the kept job from its newest retained checkpoint: what the
     * Kubernetes operator's last-state upgrade mode does when a JobManager is lost.
     */
    public JobID resumeJob() throws IOException {
        Configuration job = jobSpec().orElseThrow(() -> new IllegalStateException("no job was ever started on the cluster in " + layout.root()));
        return startJob(job, latestCheckpoint(job));
    }

    /** The newest retained checkpoint of the job, if any. */
    public static Optional<Path> latestCheckpoint(Configuration job) {
        String dir = job.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        return dir == null ? Optional.empty() : LatestCheckpoint.find(ModelStorage.local(dir));
    }

    public Optional<ProcessHandle> jobManager() {
        return FlinkJvm.find(layout, JOBMANAGER);
    }

    /** Every process this cluster ever started, alive or not, the JobManager first. */
    public List<Member> members() {
        if (!Files.isDirectory(layout.pidDir())) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(layout.pidDir())) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".pid"))
                    .map(n -> n.substring(0, n.length() - ".pid".length()))
                    .map(n -> new Member(n, FlinkJvm.find(layout, n)))
                    .sorted(Member.ORDER)
                    .toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + layout.pidDir(), e);
        }
    }

    /**
     * Starts a new TaskManager for each one that exited without being asked to (not by
     * {@link #killTaskManager} or {@link #stop}), as a Kubernetes Deployment replaces a failed pod;
     * returns "old -> new" for each. Flink ends a TaskManager process on a fatal error, and one
     * occurs in the wild: when another TaskManager is killed, a task's clean-up can rethrow the
     * lost connection's error while recycling a network buffer ("FATAL - exception in exception
     * handler of task"), which has taken every surviving TaskManager down with it.
     */
    public List<String> replaceCrashedTaskManagers() throws IOException {
        List<String> replaced = new ArrayList<>();
        for (Member m : members()) {
            if (m.index() > 0 && !marked(m.name(), STOPPED) && !marked(m.name(), REPLACED) && FlinkJvm.exited(layout, m.name())) {
                mark(m.name(), REPLACED);
                replaced.add(m.name() + " -> " + TASKMANAGER + addTaskManager());
            }
        }
        return replaced;
    }

    private void mark(String member, String marker) {
        try {
            Files.writeString(layout.pidDir().resolve(member + marker), "", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a marker in " + layout.pidDir(), e);
        }
    }

    private boolean marked(String member, String marker) {
        return Files.exists(layout.pidDir().resolve(member + marker));
    }

    /** Stops every process: TERM, then KILL whatever is still alive after {@code grace}. */
    public void stop(Duration grace) throws InterruptedException {
        members().forEach(m -> mark(m.name(), STOPPED));
        List<ProcessHandle> alive = members().stream().flatMap(m -> m.process().stream()).toList();
        alive.forEach(Signal.TERM::send);
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle p : alive) {
            if (!awaitExit(p, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                Signal.KILL.send(p);
            }
        }
    }

    private static boolean awaitExit(ProcessHandle process, Duration timeout) throws InterruptedException {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot wait for pid " + process.pid(), e);
        }
    }

    private static List<String> split(String flags) {
        return flags.isBlank() ? List.of() : List.of(flags.trim().split("\\s+"));
    }

    /** One of the cluster's processes, by the name of its pid file. */
    public record Member(String name, Optional<ProcessHandle> process) {
        static final java.util.Comparator<Member> ORDER =
                java.util.Comparator.comparing((Member m) -> !m.name().equals(JOBMANAGER)).thenComparingInt(Member::index);

        public boolean alive() {
            return process.isPresent();
        }

        public long pid() {
            return process.map(ProcessHandle::pid).orElse(-1L);
        }

        /** A TaskManager's number; 0 for the JobManager. */
        public int index() {
            return name.startsWith(TASKMANAGER) ? Integer.parseInt(name.substring(TASKMANAGER.length())) : 0;
        }
    }
}
