package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.kafka.Topics;
import io.streamtrain.testing.BrokerProcess;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker outage mid-training does not end the run: the broker, in a process of its own, is
 * killed with SIGKILL while the job trains, and started again on the same data directory and port
 * 10 s later. The run waits, goes on, stops with {@code --until-idle} once everything is trained,
 * and every record is counted exactly once (the count oracle), the ones written after the restart
 * included.
 */
class BrokerOutageIT {
    /** How long the broker stays dead before it is started again (its start-up, a few seconds, comes on top). */
    private static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("streamtrain.test.outage-seconds", 10));

    @Test
    void aBrokerKilledAndRestartedMidTrainingNeitherEndsTheRunNorBreaksTheOracle(@TempDir Path dir) throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("kafka"))) {
            String topic = "outage-" + System.nanoTime();
            Topics.ensure(broker.connection(), Map.of(topic, 4));
            TestExamples examples = new TestExamples(7);
            Path checkpoints = dir.resolve("checkpoints");
            ByteArrayOutputStream progressBytes = new ByteArrayOutputStream();
            PrintStream progress = new PrintStream(new TeeStream(progressBytes), true, StandardCharsets.UTF_8);
            try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
                examples.produce(producer, topic, 8_000);
            }
            Configuration conf = TestExamples.oracleJob(broker.bootstrapServers(), topic);
            TrainingRun.Settings settings = new TrainingRun.Settings(conf, checkpoints, 2, Duration.ofMillis(500),
                    Duration.ofSeconds(6), false, progress);
            CompletableFuture<TrainingSummary> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return TrainingRun.run(settings);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });

            awaitCheckpoints(checkpoints, 2, run);
            broker.kill();
            long killedAt = System.nanoTime();
            System.err.println("broker killed");
            Thread.sleep(OUTAGE.toMillis());
            assertTrue(!run.isDone(), "the run is still going after " + OUTAGE + " without a broker: " + describe(run));
            broker.restart();
            System.err.printf("broker back after %.1f s%n", (System.nanoTime() - killedAt) / 1e9);
            int progressLinesAtRestart = progressLines(progressBytes);
            try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
                examples.produce(producer, topic, 4_000);
            }

            TrainingSummary summary = run.get(6, TimeUnit.MINUTES);
            System.err.println("summary: " + summary.line());
            assertEquals(12_000, summary.records(), summary.line());
            assertTrue(progressLines(progressBytes) > progressLinesAtRestart, "progress lines go on after the outage");

            List<ExportedRow> rows = CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints));
            examples.assertCountedExactlyOnce(rows);
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(BrokerProcess broker) {
        return broker.connection().client().idempotent()
                .require(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
                .producer();
    }

    private static void awaitCheckpoints(Path dir, int n, CompletableFuture<?> run) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (LatestCheckpoint.newestFirst(dir).size() < n) {
            assertTrue(!run.isDone(), "the run ended before its " + n + " checkpoints: " + describe(run));
            assertTrue(System.nanoTime() < deadline, "no " + n + " checkpoints in 3 minutes");
            Thread.sleep(100);
        }
    }

    private static String describe(CompletableFuture<?> run) {
        try {
            return run.isDone() ? String.valueOf(run.getNow(null)) : "running";
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static int progressLines(ByteArrayOutputStream bytes) {
        synchronized (bytes) {
            return (int) bytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("train: t=")).count();
        }
    }

    /** Keeps the run's progress output and shows it on stderr as it comes. */
    private static final class TeeStream extends java.io.OutputStream {
        private final ByteArrayOutputStream kept;

        TeeStream(ByteArrayOutputStream kept) {
            this.kept = kept;
        }

        @Override
        public void write(int b) {
            synchronized (kept) {
                kept.write(b);
            }
            System.err.write(b);
        }
    }
}
