package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.Topics;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.testing.KafkaFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamtrain.kafka.properties.<key>} reaches every Kafka client of the training job, on
 * the task managers too: its two sources, its at-least-once and exactly-once sinks, and the
 * batcher's tail consumer, credits consumer and lag admin client. Each client keeps the settings it
 * needs whatever the user sets. A {@link ClientRecorder} named in the properties records each
 * client's configuration.
 */
class KafkaClientPropertiesIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aUserClientPropertyReachesEveryClientOfTheTrainingJob(@TempDir Path checkpoints) throws Exception {
        String topic = "client-props-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            new TestExamples(3).produce(producer, topic, 500);
        }
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, "lr");
        conf.set(TrainingOptions.BATCH_SIZE, 64);
        conf.set(TrainingOptions.MAX_WAIT, Duration.ofMillis(200));
        conf.set(PsOptions.DIM, 1);
        conf.set(PsOptions.OPTIMIZER, "count");
        // As a user gives them (-D or the Flink configuration file): one key per client property.
        ClientRecorder.properties(topic).forEach((k, v) -> conf.setString(TrainingOptions.KAFKA_PROPERTIES.key() + "." + k, v));
        // A user's isolation level must not reach the clients that read transactional output.
        conf.setString(TrainingOptions.KAFKA_PROPERTIES.key() + ".isolation.level", "read_uncommitted");
        KafkaConnection connection = TrainingOptions.kafka(conf);
        Topics.ensure(connection, TrainingOptions.derivedTopics(conf));

        Configuration flink = TrainingJob.withRequiredSettings(conf);
        flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
        flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        env.setParallelism(1);
        TrainingJob.build(env, flink, Map.of());
        JobClient job = env.executeAsync(TrainingJob.jobName(conf));
        try {
            awaitClients(topic, job, List.of(
                    c -> isConsumer(c) && (topic + "-examples").equals(c.get("group.id")),
                    c -> isConsumer(c) && (topic + "-feedback").equals(c.get("group.id")),
                    c -> "streamtrain-batcher-tail".equals(c.get("client.id")),
                    c -> "streamtrain-batcher-credits".equals(c.get("client.id")),
                    c -> "streamtrain-batcher-lag".equals(c.get("client.id")),
                    c -> String.valueOf(c.get("transactional.id")).startsWith(topic + "-dlq"),
                    c -> isProducer(c) && "none".equals(c.get("compression.type")) && "262144".equals(c.get("batch.size")),
                    c -> isProducer(c) && "lz4".equals(c.get("compression.type")) && c.get("transactional.id") == null));
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }

        List<Map<String, String>> clients = ClientRecorder.clients(topic);
        for (Map<String, String> c : clients) {
            assertEquals(kafka.bootstrapServers(), c.get("bootstrap.servers"), c.toString());
            if (isProducer(c)) {
                assertEquals("true", c.get("enable.idempotence"), "every sink is idempotent: " + c);
                assertEquals("all", c.get("acks"), c.toString());
            }
        }
        assertRequired(clients, c -> (topic + "-examples").equals(c.get("group.id")), "isolation.level", "read_committed");
        assertRequired(clients, c -> "streamtrain-batcher-tail".equals(c.get("client.id")), "isolation.level", "read_committed");
        assertRequired(clients, c -> "streamtrain-batcher-tail".equals(c.get("client.id")), "enable.auto.commit", "false");
        assertRequired(clients, c -> c.get("transactional.id") != null, "transaction.timeout.ms", "600000");
    }

    private static boolean isConsumer(Map<String, String> c) {
        return c.containsKey("group.id") || c.containsKey("isolation.level") && !c.containsKey("acks");
    }

    private static boolean isProducer(Map<String, String> c) {
        return c.containsKey("acks");
    }

    private static void assertRequired(List<Map<String, String>> clients, Predicate<Map<String, String>> which, String key, String value) {
        List<Map<String, String>> matching = clients.stream().filter(which).toList();
        assertTrue(!matching.isEmpty(), "no such client among " + clients);
        matching.forEach(c -> assertEquals(value, c.get(key), key + " of " + c));
    }

    /** Waits until a client matching each predicate has been made (the job fails the wait if it stops). */
    private static void awaitClients(String tag, JobClient job, List<Predicate<Map<String, String>>> wanted) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            List<Map<String, String>> clients = ClientRecorder.clients(tag);
            List<Integer> missing = new java.util.ArrayList<>();
            for (int i = 0; i < wanted.size(); i++) {
                if (clients.stream().noneMatch(wanted.get(i))) {
                    missing.add(i);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            if (job.getJobStatus().get().isTerminalState() || System.nanoTime() > deadline) {
                throw new AssertionError("no client for expectations " + missing + " (job " + job.getJobStatus().get()
                        + ") among " + clients);
            }
            Thread.sleep(200);
        }
    }
}
