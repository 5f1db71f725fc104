package io.streamtrain.cli;

import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.LatestCheckpoint;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** The launcher's command line run in-process, as {@code bin/streamtrain} runs it: its exit code and what it reported. */
record CliRun(int exitCode, String err, double seconds) {
    static CliRun of(String... args) {
        StringWriter err = new StringWriter();
        long start = System.nanoTime();
        int code = StreamtrainCli.commandLine().setErr(new PrintWriter(err, true)).execute(args);
        return new CliRun(code, err.toString(), (System.nanoTime() - start) / 1e9);
    }

    /** A command running on its own thread, stopped as Ctrl-C stops the launcher (an interrupt). */
    static final class Running {
        private final Thread thread;
        private volatile CliRun result;

        private Running(String... args) {
            thread = new Thread(() -> result = CliRun.of(args), "cli-" + args[0]);
            thread.start();
        }

        boolean isAlive() {
            return thread.isAlive();
        }

        /** Waits until {@code dir} holds {@code n} complete checkpoints (or the command ended); fails after 4 minutes. */
        Running awaitCheckpoints(Path dir, int n) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
            while (isAlive() && LatestCheckpoint.newestFirst(dir).size() < n && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertTrue(LatestCheckpoint.newestFirst(dir).size() >= n, "checkpoints in " + dir + ": "
                    + LatestCheckpoint.newestFirst(dir) + (isAlive() ? "" : "; the command ended: " + result));
            return this;
        }

        CliRun stop() throws InterruptedException {
            thread.interrupt();
            thread.join(Duration.ofMinutes(2).toMillis());
            assertFalse(thread.isAlive(), "the command did not stop when interrupted");
            return result;
        }
    }

    static Running start(String... args) {
        return new Running(args);
    }

    /** Writes {@code n} small random examples to {@code topic}. */
    static void produceExamples(KafkaProducer<byte[], byte[]> producer, String topic, int n) {
        Random random = new Random(n);
        AvroCodec<Example> codec = AvroCodec.of(Example.class);
        for (int i = 0; i < n; i++) {
            Example e = Example.newBuilder()
                    .setId("e" + i)
                    .setEventTime(Instant.now())
                    .setLabel(random.nextBoolean() ? 1f : 0f)
                    .setFeatures(List.of(new Feature(0, (long) random.nextInt(100), 1f), new Feature(1, (long) random.nextInt(50), 1f)))
                    .build();
            producer.send(new ProducerRecord<>(topic, codec.encode(e)));
        }
        producer.flush();
    }
}
