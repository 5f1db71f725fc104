package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamtrain.kafka.properties.<key>} reaches every Kafka client of a training run: the
 * job's two sources, its at-least-once and exactly-once sinks, the batcher's tail consumer, credits
 * consumer and lag admin client on the task managers, and the launcher's progress admin, record
 * counter and metrics follower. Each client keeps the settings it needs whatever the user sets. A
 * {@link ClientRecorder} named in the properties records each client's configuration.
 */
class KafkaClientPropertiesIT {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aUserClientPropertyReachesEveryClientOfATrainingRun(@TempDir Path checkpoints) throws Exception {
        String topic = "client-props-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        TestExamples examples = new TestExamples(3);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 500);
        }
        Configuration conf = TestExamples.oracleJob(kafka.bootstrapServers(), topic);
        // As a user gives them (-D or the Flink configuration file): one key per client property.
        ClientRecorder.properties(topic).forEach((k, v) -> conf.setString(TrainingOptions.KAFKA_PROPERTIES.key() + "." + k, v));
        // A user's isolation level must not reach the clients that read transactional output.
        conf.setString(TrainingOptions.KAFKA_PROPERTIES.key() + ".isolation.level", "read_uncommitted");

        // Idle for 20 s: --until-idle counts from the job's submission, and on a loaded machine the
        // job may take longer than a few seconds to read its first record.
        TrainingSummary summary = TrainingRun.run(new TrainingRun.Settings(conf, checkpoints, 1, Duration.ofMillis(500),
                Duration.ofSeconds(20), true, System.err));
        assertEquals(500, summary.records(), summary.line());

        List<Map<String, String>> clients = ClientRecorder.clients(topic);
        Map<String, Predicate<Map<String, String>>> kinds = Map.ofEntries(
                Map.entry("examples source", c -> (topic + "-examples").equals(c.get("group.id"))),
                Map.entry("feedback source", c -> (topic + "-feedback").equals(c.get("group.id"))),
                Map.entry("batcher tail", clientId("streamtrain-batcher-tail")),
                Map.entry("batcher credits", clientId("streamtrain-batcher-credits")),
                Map.entry("batcher lag admin", clientId("streamtrain-batcher-lag")),
                Map.entry("exactly-once sink", c -> String.valueOf(c.get("transactional.id")).startsWith(topic + "-dlq")),
                Map.entry("feedback sink", c -> "none".equals(c.get("compression.type")) && "262144".equals(c.get("batch.size"))),
                Map.entry("metrics sink", c -> "lz4".equals(c.get("compression.type")) && c.get("transactional.id") == null),
                Map.entry("progress admin", clientId("streamtrain-progress")),
                Map.entry("record counter", clientId("streamtrain-progress-count")),
                Map.entry("metrics follower", clientId("streamtrain-metrics-follower")));
        kinds.forEach((kind, which) -> assertTrue(clients.stream().anyMatch(which), "no " + kind + " among " + clients));

        for (Map<String, String> c : clients) {
            assertEquals(kafka.bootstrapServers(), c.get("bootstrap.servers"), c.toString());
            if (c.containsKey("acks")) {
                assertEquals("true", c.get("enable.idempotence"), "every producer is idempotent: " + c);
                assertEquals("all", c.get("acks"), c.toString());
            }
        }
        assertEach(clients, kinds.get("examples source"), "isolation.level", "read_committed");
        assertEach(clients, kinds.get("batcher tail"), "isolation.level", "read_committed");
        assertEach(clients, kinds.get("exactly-once sink"), "transaction.timeout.ms", "600000");
    }

    private static Predicate<Map<String, String>> clientId(String id) {
        return c -> id.equals(c.get("client.id"));
    }

    private static void assertEach(List<Map<String, String>> clients, Predicate<Map<String, String>> which, String key, String value) {
        clients.stream().filter(which).forEach(c -> assertEquals(value, c.get(key), key + " of " + c));
    }
}
