package io.streamtrain.testing;

import io.streamtrain.kafka.KafkaCommand;
import io.streamtrain.kafka.KafkaConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * The local broker ({@code streamtrain kafka}) in a JVM of its own, so that a test can kill it
 * with SIGKILL, as an operator's node failure would, and start it again on the same data
 * directory and port. Its output goes to {@code DIR.log} beside the data directory.
 */
public final class BrokerProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final int port;
    private final Path dir;
    private final Path log;
    private Process process;
    private int starts;

    private BrokerProcess(int port, Path dir) {
        this.port = port;
        this.dir = dir;
        this.log = dir.resolveSibling(dir.getFileName() + ".log");
    }

    /** Starts a broker on a free loopback port with its data in {@code dir}; returns once it accepts clients. */
    public static BrokerProcess start(Path dir) throws IOException, InterruptedException {
        BrokerProcess broker = new BrokerProcess(freePort(), dir);
        broker.restart();
        return broker;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public KafkaConnection connection() {
        return KafkaConnection.to(bootstrapServers());
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or handed over. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Starts the broker (again) on the same port and data directory; returns once it accepts clients. */
    public void restart() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the broker still runs");
        }
        Files.createDirectories(dir);
        process = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                        "-cp", System.getProperty("java.class.path"), BrokerProcess.class.getName(),
                        "--port", String.valueOf(port), "--dir", dir.toString()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        // The log is appended to across restarts: this start is ready when its own ready line is there.
        while (readyLines() <= starts) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("the broker did not start" + (process.isAlive() ? " in " + START_TIMEOUT : "")
                        + "; its output is in " + log);
            }
            Thread.sleep(100);
        }
        starts++;
    }

    private long readyLines() throws IOException {
        String ready = "kafka: listening on " + bootstrapServers();
        return Files.exists(log) ? Files.readAllLines(log).stream().filter(l -> l.startsWith(ready)).count() : 0;
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            kill();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            return s.getLocalPort();
        }
    }

    /** The broker's JVM: {@code streamtrain kafka} with the given arguments. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new KafkaCommand()).execute(args));
    }
}
