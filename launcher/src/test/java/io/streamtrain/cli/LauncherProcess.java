package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The launcher as {@code bin/streamtrain} runs it: {@link StreamtrainCli#main} in a JVM of its own,
 * with an environment of the test's choosing (the parent's, less what Flink and AWS read, plus
 * {@code env}), stdout and stderr together in {@code log}.
 */
final class LauncherProcess {
    /** What a launcher process must not inherit from the test's environment: its settings come from the test. */
    private static final List<String> NOT_INHERITED = List.of("FLINK_CONF_DIR", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION");
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    private LauncherProcess() {}

    /** A finished command: its exit code, everything it printed and how long it took. */
    record Result(int exitCode, String output, double seconds) {}

    static Process start(Map<String, String> env, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StreamtrainCli.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        NOT_INHERITED.forEach(builder.environment()::remove);
        builder.environment().putAll(env);
        return builder.start();
    }

    /** Runs a command to its end (at most 3 minutes). */
    static Result run(Map<String, String> env, Path log, String... args) throws Exception {
        long started = System.nanoTime();
        Process process = start(env, log, args);
        try {
            assertTrue(process.waitFor(3, TimeUnit.MINUTES), "the command ended: " + String.join(" ", args));
            return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8), (System.nanoTime() - started) / 1e9);
        } finally {
            process.destroyForcibly();
        }
    }

    /** The port a {@code serve} process says it listens on, once it does (at most 2 minutes). */
    static int servingPort(Process serve, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline && serve.isAlive()) {
            Matcher m = LISTENING.matcher(Files.readString(log, StandardCharsets.UTF_8));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            Thread.sleep(50);
        }
        throw new AssertionError("serve did not start listening:\n" + Files.readString(log, StandardCharsets.UTF_8));
    }
}
