package io.streamtrain.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientPropertiesTest {
    @TempDir
    Path dir;

    @Test
    void loadsKafkasClientPropertiesFormatIntoEveryClientOfTheConnection() throws IOException {
        Path file = Files.writeString(dir.resolve("client.properties"), """
                # comments and blank lines, as in Kafka's tools' --command-config

                security.protocol = SASL_SSL
                sasl.mechanism:SCRAM-SHA-512
                sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\
                    username="u" password="p";
                """);
        KafkaConnection kafka = KafkaConnection.of("b:9093", file);
        assertEquals(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"p\";"),
                kafka.clientProperties());
        assertEquals("SASL_SSL", kafka.client().properties().getProperty("security.protocol"));
        assertEquals(Map.of(), KafkaConnection.of("b:9093", null).clientProperties());
    }

    @Test
    void aMissingFileOrABootstrapServersEntryIsAClearError() throws IOException {
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> KafkaClientProperties.load(dir.resolve("nope.properties")));
        assertTrue(missing.getMessage().startsWith("--kafka-properties: no such file: "), missing.getMessage());
        Path withServers = Files.writeString(dir.resolve("servers.properties"), "bootstrap.servers=elsewhere:9092\n");
        IllegalArgumentException servers = assertThrows(IllegalArgumentException.class, () -> KafkaClientProperties.load(withServers));
        assertTrue(servers.getMessage().contains("bootstrap.servers belongs to --bootstrap"), servers.getMessage());
    }

    @Test
    void kafkasPasswordSettingsAndLookAlikesAreSecretsWithOrWithoutAPrefix() {
        for (String key : List.of("sasl.jaas.config", "ssl.keystore.password", "ssl.key.password", "ssl.truststore.password",
                "ssl.keystore.key", "ssl.truststore.certificates", "sasl.oauthbearer.client.credentials.client.secret",
                "streamtrain.kafka.properties.sasl.jaas.config", "properties.ssl.keystore.key", "my.plugin.secret",
                "listener.name.x.scram-sha-512.sasl.jaas.config")) {
            assertTrue(KafkaClientProperties.isSecret(key), key);
        }
        for (String key : List.of("security.protocol", "sasl.mechanism", "ssl.truststore.location", "ssl.keystore.type",
                "request.timeout.ms", "streamtrain.kafka.properties.security.protocol")) {
            assertFalse(KafkaClientProperties.isSecret(key), key);
        }
        assertEquals(Map.of("sasl.jaas.config", "******", "security.protocol", "SSL"),
                KafkaClientProperties.masked(Map.of("sasl.jaas.config", "x password=\"p\"", "security.protocol", "SSL")));
    }
}
