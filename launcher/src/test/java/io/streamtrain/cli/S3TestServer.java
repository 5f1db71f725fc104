package io.streamtrain.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/**
 * A real S3 API server for tests: s3proxy with jclouds' file-system backend (each bucket a
 * directory under {@code root}), in a JVM of its own because its Jetty, Guava and Logback would
 * clash with the launcher's. Its class path is the one Maven resolved for the s3-test-server module.
 */
final class S3TestServer implements AutoCloseable {
    static final String ACCESS_KEY = "streamtrain-test";
    static final String SECRET_KEY = "streamtrain-test-secret";
    private static final Path CLASS_PATH = Path.of("..", "s3-test-server", "target", "s3proxy.classpath");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final int port;

    private S3TestServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the server on a free loopback port with the buckets {@code buckets} (empty). */
    static S3TestServer start(Path root, String... buckets) throws Exception {
        if (!Files.isRegularFile(CLASS_PATH)) {
            throw new IllegalStateException(CLASS_PATH.toAbsolutePath() + " is missing: build through the reactor (-pl launcher -am)");
        }
        Path data = Files.createDirectories(root.resolve("data"));
        for (String bucket : buckets) {
            Files.createDirectories(data.resolve(bucket));
        }
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Path properties = root.resolve("s3proxy.properties");
        Files.writeString(properties, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + ACCESS_KEY,
                "s3proxy.credential=" + SECRET_KEY,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + data.toAbsolutePath()), StandardCharsets.UTF_8);
        Path logback = root.resolve("logback.xml");
        Files.writeString(logback, "<configuration><root level=\"WARN\"/></configuration>", StandardCharsets.UTF_8);
        Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Dlogback.configurationFile=" + logback.toAbsolutePath(),
                "-cp", Files.readString(CLASS_PATH, StandardCharsets.UTF_8).trim(),
                "org.gaul.s3proxy.Main", "--properties", properties.toAbsolutePath().toString()))
                .redirectErrorStream(true)
                .redirectOutput(root.resolve("s3proxy.log").toFile())
                .start();
        S3TestServer server = new S3TestServer(process, port);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!server.answers()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new IllegalStateException("s3proxy did not start; see " + root.resolve("s3proxy.log"));
            }
            Thread.sleep(200);
        }
        return server;
    }

    private boolean answers() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** Flink's S3 settings for this server, with the given secret key. */
    Map<String, String> settings(String secretKey) {
        return Map.of(
                "s3.endpoint", endpoint(),
                "s3.path.style.access", "true",
                "s3.access-key", ACCESS_KEY,
                "s3.secret-key", secretKey,
                // s3proxy's file-system backend stalls on S3's multi-object delete and on deleting directory
                // markers: one DELETE per key, and markers kept (as S3A does by default from Hadoop 3.5)
                "s3.multiobjectdelete.enable", "false",
                "s3.directory.marker.retention", "keep",
                // a wrong key or a dead endpoint fails in seconds, not after Hadoop's default minutes of retries
                "s3.attempts.maximum", "2",
                "s3.retry.limit", "2");
    }

    Configuration configuration() {
        return Configuration.fromMap(settings(SECRET_KEY));
    }

    /** The same settings as {@code -D} arguments of a command. */
    List<String> dynamicProperties() {
        return settings(SECRET_KEY).entrySet().stream().map(e -> "-D" + e.getKey() + "=" + e.getValue()).sorted().toList();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
