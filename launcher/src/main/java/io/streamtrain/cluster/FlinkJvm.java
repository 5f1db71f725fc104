package io.streamtrain.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Starts one of Flink's own entry points (JobManager or TaskManager) as a separate JVM on this
 * machine's classpath (the launcher's jar, or the test classpath) or the cluster's own
 * ({@link ClusterLayout#classPathFile}), detached from the caller:
 * output goes to the process's log, its pid to its pid file, and it outlives the command that
 * started it.
 */
final class FlinkJvm {
    /** The module flags Flink's own launch scripts pass on Java 17. */
    static final List<String> JAVA_17_OPENS = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED");

    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private FlinkJvm() {}

    static ProcessHandle start(ClusterLayout layout, String name, List<String> jvmArgs, String mainClass, List<String> args)
            throws IOException {
        Files.createDirectories(layout.logDir());
        Files.createDirectories(layout.pidDir());
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            // Its own session: a Ctrl-C meant for the command that started it does not reach it.
            command.add(SETSID.toString());
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(JAVA_17_OPENS);
        command.add("-Dlog.file=" + layout.logFile(name));
        command.add("-Dlog4j.configurationFile=" + layout.confDir().resolve(ClusterConfig.LOG4J_FILE));
        for (String djl : List.of("DJL_CACHE_DIR", "ENGINE_CACHE_DIR", "ai.djl.offline")) {
            // PyTorch's natives, unpacked once (~430 MB) where this JVM has them, not again per TaskManager.
            Optional.ofNullable(System.getProperty(djl)).ifPresent(value -> command.add("-D" + djl + "=" + value));
        }
        command.add("-cp");
        command.add(classPath(layout));
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(FileSystemPlugins.environment());
        Process process = builder
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(layout.logDir().resolve(name + ".out").toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        // Atomically: another process polling the pid file must never read it half written.
        Path partial = layout.pidDir().resolve(name + ".pid.partial");
        Files.writeString(partial, Long.toString(process.pid()), StandardCharsets.UTF_8);
        Files.move(partial, layout.pidFile(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return process.toHandle();
    }

    private static String classPath(ClusterLayout layout) throws IOException {
        Path file = layout.classPathFile();
        return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8).trim() : System.getProperty("java.class.path");
    }

    /** The live process recorded in {@code name}'s pid file, if it is still one of this cluster's. */
    static Optional<ProcessHandle> find(ClusterLayout layout, String name) {
        return recordedPid(layout, name).flatMap(pid -> live(layout, name, pid));
    }

    /**
     * True only when {@code name}'s pid file is readable and no process with that pid is alive. A
     * wrong "exited" would start a needless replacement, so this is stricter than {@link #find}: a
     * process just started can, for a moment before its exec, still show its parent's command line.
     */
    static boolean exited(ClusterLayout layout, String name) {
        return recordedPid(layout, name).map(pid -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()).orElse(false);
    }

    private static Optional<Long> recordedPid(ClusterLayout layout, String name) {
        Path pidFile = layout.pidFile(name);
        if (!Files.isRegularFile(pidFile)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<ProcessHandle> live(ClusterLayout layout, String name, long pid) {
        // A recycled pid belongs to some other program: it must carry this cluster's log file.
        String marker = "-Dlog.file=" + layout.logFile(name);
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().arguments().map(a -> List.of(a).contains(marker)).orElse(true));
    }
}
