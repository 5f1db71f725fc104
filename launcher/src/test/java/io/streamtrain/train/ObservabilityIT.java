package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.Prometheus;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real local training run (KRaft broker, MiniCluster at parallelism 2, Prometheus reporter on)
 * fed by a steady stream with a few bad records, observed from outside the way an operator would:
 * the reporter's /metrics endpoint, the metrics topic, the dashboard, the report.
 */
class ObservabilityIT {
    static final Duration WAIT = Duration.ofMinutes(3);
    static final int PARALLELISM = 2;
    static final int NOT_AVRO = 3;
    static final int BAD_LABEL = 2;

    static final KafkaFixture kafka = KafkaFixture.shared();
    static final HttpClient http = HttpClient.newHttpClient();
    static String topic;
    static int prometheusPort;
    static Thread training;
    static Thread stream;
    static final AtomicReference<Object> outcome = new AtomicReference<>();
    static final ByteArrayOutputStream progress = new ByteArrayOutputStream();

    @TempDir
    static Path dir;

    @BeforeAll
    static void startTraining() throws Exception {
        topic = "observed-" + System.nanoTime();
        kafka.createTopic(topic, 4);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (int i = 0; i < NOT_AVRO; i++) {
                producer.send(new ProducerRecord<>(topic, ("garbage " + i).getBytes(StandardCharsets.UTF_8)));
            }
            TestExamples bad = new TestExamples(99);
            var codec = io.streamtrain.schema.AvroCodec.of(io.streamtrain.schema.Example.class);
            for (int i = 0; i < BAD_LABEL; i++) {
                var e = bad.next();
                e.setLabel(0.5f);
                producer.send(new ProducerRecord<>(topic, codec.encode(e)));
            }
        }
        stream = new Thread(ObservabilityIT::writeSteadily, "observed-stream");
        stream.setDaemon(true);
        stream.start();

        prometheusPort = freePort();
        Configuration conf = Prometheus.enable(new Configuration(), String.valueOf(prometheusPort));
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, ModelKind.FM);
        conf.set(TrainingOptions.BATCH_SIZE, 256);
        conf.set(TrainingOptions.VALIDATION_WINDOW, 2000);
        conf.set(PsOptions.DIM, 4);
        TrainingRun.Settings settings = new TrainingRun.Settings(conf, dir.resolve("checkpoints"), PARALLELISM,
                Duration.ofSeconds(1), null, false, new PrintStream(progress, true, StandardCharsets.UTF_8));
        training = new Thread(() -> {
            try {
                outcome.set(TrainingRun.run(settings));
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "observed-training");
        training.start();
    }

    /** About 2,000 examples/s, well below what the job trains, so the run is steady rather than a backlog. */
    private static void writeSteadily() {
        TestExamples examples = new TestExamples(7);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            while (!Thread.currentThread().isInterrupted()) {
                examples.produce(producer, topic, 500);
                Thread.sleep(250);
            }
        } catch (InterruptedException e) {
            // stopped
        } catch (RuntimeException e) {
            if (!Thread.currentThread().isInterrupted()) {
                throw e;
            }
        }
    }

    @AfterAll
    static void stopTraining() throws Exception {
        stream.interrupt();
        stream.join(10_000);
        training.interrupt();
        training.join(WAIT.toMillis());
        Files.writeString(Path.of("target", "observability-it-train.log"), progress.toString(StandardCharsets.UTF_8));
        if (outcome.get() instanceof Throwable t) {
            throw new AssertionError("the training run failed", t);
        }
        assertTrue(outcome.get() instanceof TrainingSummary, "training returned a summary");
    }

    @Test
    void prometheusEndpointServesTheDocumentedMetricsWithSaneValues() throws Exception {
        List<String> documented = DocumentedMetrics.prometheusNames(Path.of("..", "docs", "metrics.md"));
        assertTrue(documented.size() >= 15, "docs/metrics.md lists the Prometheus names: " + documented);

        // RocksDB's key estimate trails the writes (memtable accounting), so it is waited for too.
        Scrape scrape = awaitScrape("every documented metric, the dead letters, a checkpoint, PS rows and a lag per partition",
                s -> documented.stream().allMatch(s::has)
                        && s.sum("flink_taskmanager_job_task_operator_batcher_reason_deadLetters", Set.of("reason=\"not_avro\"")) == NOT_AVRO
                        && s.sum("flink_taskmanager_job_task_operator_batcher_reason_deadLetters", Set.of("reason=\"bad_label\"")) == BAD_LABEL
                        && s.max("flink_jobmanager_job_numberOfCompletedCheckpoints", Set.of()) >= 2
                        && s.sum("flink_taskmanager_job_task_operator_column_family_rocksdb_estimate_num_keys",
                                Set.of("column_family=\"rows\"")) > 0
                        // a partition's lag gauge appears with its first record, which a loaded machine may not have reached yet
                        && s.samples("flink_taskmanager_job_task_operator_batcher_partition_lag").size() == 4);
        Files.writeString(Path.of("target", "observability-it-scrape.txt"), scrape.text());

        String op = "flink_taskmanager_job_task_operator_";
        assertEquals(NOT_AVRO + BAD_LABEL, scrape.sum(op + "batcher_deadLetters", Set.of()), "all dead letters");
        assertTrue(scrape.sum(op + "worker_examplesTrained", Set.of()) > 0, "examples trained");
        assertTrue(scrape.min(op + "worker_examplesPerSecond", Set.of()) >= 0, "examples/s");
        double auc = scrape.max(op + "worker_windowAuc", Set.of());
        assertTrue(auc > 0 && auc < 1, "window AUC is a probability: " + auc);
        assertTrue(scrape.max(op + "worker_windowLogloss", Set.of()) > 0, "logloss");
        assertEquals(PARALLELISM, scrape.max(op + "worker_parallelism", Set.of()), "current parallelism");
        assertEquals(PARALLELISM, scrape.samples(op + "worker_parallelism").size(), "one worker subtask per slot");
        double p50 = scrape.max(op + "ps_gradientStalenessMs", Set.of("quantile=\"0.5\""));
        double p99 = scrape.max(op + "ps_gradientStalenessMs", Set.of("quantile=\"0.99\""));
        assertTrue(p50 >= 0 && p99 >= p50, "staleness quantiles p50 " + p50 + " <= p99 " + p99);
        assertTrue(scrape.sum(op + "ps_rowsAdmitted", Set.of()) > 0, "rows admitted");
        assertEquals(0, scrape.sum(op + "ps_rowsExpired", Set.of()), "no TTL, nothing expires");
        assertTrue(scrape.sum(op + "column_family_rocksdb_estimate_num_keys", Set.of("column_family=\"rows\"")) > 0, "PS rows");
        assertEquals(4, scrape.samples(op + "batcher_partition_lag").size(), "a lag per source partition");
        assertTrue(scrape.min(op + "batcher_partition_lag", Set.of()) >= 0, "lag is never negative");
        assertEquals(0, scrape.max("flink_jobmanager_job_numRestarts", Set.of()), "no restarts");
        assertTrue(scrape.max("flink_jobmanager_job_lastCheckpointFullSize", Set.of()) > 0, "checkpoint size");
        assertTrue(scrape.max("flink_jobmanager_job_lastCheckpointDuration", Set.of()) >= 0, "checkpoint duration");
    }

    static Scrape awaitScrape(String what, Predicate<Scrape> ready) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Scrape last = null;
        while (System.nanoTime() < deadline) {
            if (outcome.get() != null) {
                throw new AssertionError("training ended early: " + outcome.get());
            }
            try {
                last = Scrape.of(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prometheusPort + "/metrics"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body());
                if (ready.test(last)) {
                    return last;
                }
            } catch (java.io.IOException notYet) {
                // the reporter starts with the MiniCluster
            }
            Thread.sleep(1000);
        }
        if (last != null) {
            Files.writeString(Path.of("target", "observability-it-scrape.txt"), last.text());
        }
        throw new AssertionError("no scrape with " + what + " within " + WAIT + " (last scrape in target/observability-it-scrape.txt)");
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
