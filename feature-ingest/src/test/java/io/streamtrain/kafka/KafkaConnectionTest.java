package io.streamtrain.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class KafkaConnectionTest {
    private static final KafkaConnection SECURED = new KafkaConnection("broker:9093", Map.of(
            "security.protocol", "SASL_SSL",
            "sasl.jaas.config", "ScramLoginModule required username=\"u\" password=\"hunter2\";",
            "request.timeout.ms", "7000",
            "isolation.level", "read_uncommitted",
            "bootstrap.servers", "elsewhere:9092"));

    @Test
    void userPropertiesReplaceDefaultsButNotRequiredSettingsOrTheBootstrapServers() {
        Properties p = SECURED.client()
                .withDefault("request.timeout.ms", 5000)
                .withDefault("client.id", "streamtrain-test")
                .require("isolation.level", "read_committed")
                .properties();
        assertEquals("7000", p.getProperty("request.timeout.ms"), "a user property replaces the client's default");
        assertEquals("streamtrain-test", p.getProperty("client.id"), "a default the user did not set stays");
        assertEquals("read_committed", p.getProperty("isolation.level"), "a required setting wins over the user's");
        assertEquals("broker:9093", p.getProperty("bootstrap.servers"));
        assertEquals("SASL_SSL", p.getProperty("security.protocol"));
    }

    @Test
    void idempotentRequiresIdempotenceAndAcksFromAllReplicas() {
        Properties p = new KafkaConnection("b:1", Map.of("acks", "1", "enable.idempotence", "false")).client().idempotent().properties();
        assertEquals("true", p.getProperty("enable.idempotence"));
        assertEquals("all", p.getProperty("acks"));
    }

    @Test
    void survivesJavaSerializationForOperatorsOnTaskManagers() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(SECURED);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            KafkaConnection copy = (KafkaConnection) in.readObject();
            assertEquals(SECURED, copy);
            assertEquals(SECURED.client().properties(), copy.client().properties());
        }
    }

    @Test
    void toStringNamesTheServersButNoPropertyValue() {
        String shown = SECURED.toString();
        assertTrue(shown.contains("broker:9093"), shown);
        assertFalse(shown.contains("hunter2") || shown.contains("SASL_SSL") || shown.contains("jaas"), shown);
    }

    /** Every kind of client takes the user's properties: an invalid one fails its construction at once, naming it. */
    @Test
    void aBadUserPropertyFailsEveryKindOfClientAtOnce() {
        KafkaConnection bogus = new KafkaConnection("127.0.0.1:1", Map.of("security.protocol", "BOGUS"));
        assertNamesSecurityProtocol(() -> bogus.client().admin().close());
        assertNamesSecurityProtocol(() -> bogus.client().consumer().close());
        assertNamesSecurityProtocol(() -> bogus.client().producer().close());
        assertNamesSecurityProtocol(() -> Topics.admin(bogus).close());
    }

    static void assertNamesSecurityProtocol(Executable client) {
        KafkaException e = assertThrows(KafkaException.class, client);
        String messages = "";
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages += t.getMessage() + "\n";
        }
        assertTrue(messages.contains("security.protocol") || messages.contains("BOGUS"), messages);
    }
}
