package io.streamtrain.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fixed-port and persistent-directory paths that the shared test broker does not take. */
class LocalKafkaTest {
    @TempDir
    Path dir;

    @Test
    void honoursAFixedPortAndKeepsTopicsAcrossRestarts() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            port = probe.getLocalPort();
        }
        try (LocalKafka kafka = LocalKafka.start(port, dir)) {
            assertEquals("127.0.0.1:" + port, kafka.bootstrapServers());
            kafka.createTopic("persisted", 2);
        }
        try (LocalKafka kafka = LocalKafka.start(port, dir);
                Admin admin = Topics.admin(kafka.connection())) {
            assertTrue(admin.listTopics().names().get().contains("persisted"));
            assertEquals(2, admin.describeTopics(Set.of("persisted")).allTopicNames().get()
                    .get("persisted").partitions().size());
        }
        assertTrue(dir.resolve("meta.properties").toFile().exists(), "a given data directory is kept");
    }
}
