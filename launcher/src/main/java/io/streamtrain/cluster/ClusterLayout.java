package io.streamtrain.cluster;

import java.nio.file.Path;

/**
 * Where a local cluster keeps its files under {@code --dir}: the cluster's Flink configuration,
 * one pid file and one log per process, and the training job it runs (reactive mode runs one job
 * per cluster; the JobManager is that job's application master).
 */
public record ClusterLayout(Path root) {
    public ClusterLayout {
        root = root.toAbsolutePath().normalize();
    }

    /** {@code conf/config.yaml}: what every TaskManager reads. */
    public Path confDir() {
        return root.resolve("conf");
    }

    public Path logDir() {
        return root.resolve("log");
    }

    public Path pidDir() {
        return root.resolve("pid");
    }

    public Path pidFile(String process) {
        return pidDir().resolve(process + ".pid");
    }

    public Path logFile(String process) {
        return logDir().resolve(process + ".log");
    }

    /** Native libraries unpacked once for every TaskManager ({@link NativeLibraries}). */
    public Path libDir() {
        return root.resolve("lib");
    }

    /**
     * The class path of the cluster's JVMs, when a caller wrote one: e.g. Flink's own modules only,
     * as on a real cluster, so that a job must bring the rest in its jar. Without it, this JVM's.
     */
    public Path classPathFile() {
        return root.resolve("classpath");
    }

    /** The training job's own configuration, kept so that a new JobManager can resume it. */
    public Path jobSpecDir() {
        return root.resolve("job").resolve("spec");
    }

    /** The JobManager's configuration directory: the cluster's configuration plus the job's. */
    public Path jobManagerConfDir() {
        return root.resolve("job").resolve("conf");
    }
}
