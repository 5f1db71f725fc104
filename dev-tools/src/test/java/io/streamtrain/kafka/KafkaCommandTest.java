package io.streamtrain.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class KafkaCommandTest {
    @TempDir
    Path dir;

    @Test
    void startsCreatesTopicsAndStops() throws Exception {
        KafkaCommand command = new KafkaCommand();
        PipedInputStream pipe = new PipedInputStream();
        PrintWriter out = new PrintWriter(new PipedOutputStream(pipe), true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(command).setOut(out)
                .execute("--port", "0", "--dir", dir.toString(), "--topics", "cmd-a:3,cmd-b"));
        String line = new BufferedReader(new InputStreamReader(pipe, StandardCharsets.UTF_8)).readLine();
        Matcher m = Pattern.compile("kafka: listening on (127\\.0\\.0\\.1:\\d+) \\(data in (.+)\\); Ctrl-C to stop").matcher(line);
        assertTrue(m.matches(), line);
        assertEquals(dir.toAbsolutePath().toString(), m.group(2));
        try (Admin admin = Topics.admin(KafkaConnection.to(m.group(1)))) {
            Map<String, TopicDescription> topics = admin.describeTopics(Set.of("cmd-a", "cmd-b")).allTopicNames().get();
            assertEquals(3, topics.get("cmd-a").partitions().size());
            assertEquals(1, topics.get("cmd-b").partitions().size());
        } finally {
            command.stop();
        }
        assertEquals(0, exit.get(30, TimeUnit.SECONDS));
    }

    @Test
    void secureWritesTheClientPropertiesFilesThatReachItsTwoListeners() throws Exception {
        KafkaCommand command = new KafkaCommand();
        PipedInputStream pipe = new PipedInputStream();
        PrintWriter out = new PrintWriter(new PipedOutputStream(pipe), true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(command).setOut(out)
                .execute("--secure", "--port", "0", "--dir", dir.toString(), "--topics", "secure-cmd:2"));
        BufferedReader lines = new BufferedReader(new InputStreamReader(pipe, StandardCharsets.UTF_8));
        try {
            Matcher sasl = Pattern.compile("kafka: SASL_SSL \\(SCRAM-SHA-512\\) on (127\\.0\\.0\\.1:\\d+): --kafka-properties (.+)")
                    .matcher(lines.readLine());
            assertTrue(sasl.matches(), sasl.toString());
            Matcher mtls = Pattern.compile("kafka: mTLS on (127\\.0\\.0\\.1:\\d+): --kafka-properties (.+)").matcher(lines.readLine());
            assertTrue(mtls.matches(), mtls.toString());
            assertEquals(dir.toAbsolutePath().resolve("client.properties").toString(), sasl.group(2));
            int port = Integer.parseInt(sasl.group(1).substring(sasl.group(1).indexOf(':') + 1));
            assertEquals("127.0.0.1:" + (port + 1), mtls.group(1), "mTLS on the next port");
            for (Matcher listener : new Matcher[] {sasl, mtls}) {
                try (Admin admin = Topics.admin(KafkaConnection.of(listener.group(1), Path.of(listener.group(2))))) {
                    assertEquals(2, admin.describeTopics(Set.of("secure-cmd")).allTopicNames().get().get("secure-cmd").partitions().size());
                }
            }
        } finally {
            command.stop();
        }
        assertEquals(0, exit.get(30, TimeUnit.SECONDS));
    }

    @Test
    void rejectsMalformedTopics() {
        int code = new CommandLine(new KafkaCommand()).setErr(new PrintWriter(new java.io.StringWriter()))
                .execute("--port", "0", "--dir", dir.toString(), "--topics", "x:zero");
        assertEquals(2, code);
    }
}
