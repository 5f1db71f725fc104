package io.streamtrain.testing;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/** Testcontainers Kafka for {@link KafkaFixture}; a separate class so it is loaded only in that mode. */
final class TestcontainersKafka {
    record Started(String bootstrapServers, AutoCloseable container, String skipReason) {}

    private TestcontainersKafka() {}

    static Started start(String image) {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return new Started(null, null, "streamtrain.test.kafka=testcontainers but there is no Docker engine: "
                    + "skipping the Kafka tests (run without -Pdocker to use the embedded broker)");
        }
        KafkaContainer kafka = new KafkaContainer(DockerImageName.parse(image))
                // Same one-broker settings as LocalKafka (see there for why).
                .withEnv("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
                .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
                .withEnv("KAFKA_TRANSACTION_MAX_TIMEOUT_MS", "3600000")
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "true");
        kafka.start();
        return new Started(kafka.getBootstrapServers(), kafka::stop, null);
    }
}
