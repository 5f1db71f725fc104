package io.streamtrain.ingest;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.ingest.format.InputLines;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

/** Ingest's topic admin and producer take the user's client properties: a bad one stops the run at once, naming it. */
class IngestorClientTest {
    private static final KafkaConnection BOGUS = new KafkaConnection("127.0.0.1:1", Map.of("security.protocol", "BOGUS"));
    private static final String LINE = "1 1:1\n";

    @Test
    void theProducerTakesTheUsersClientProperties() {
        assertNamesSecurityProtocol(IngestSettings.of(BOGUS, "t").withPartitions(0)); // no topic creation: the producer first
    }

    @Test
    void topicCreationTakesTheUsersClientProperties() {
        assertNamesSecurityProtocol(IngestSettings.of(BOGUS, "t").withPartitions(1));
    }

    private static void assertNamesSecurityProtocol(IngestSettings settings) {
        var parser = LineFormat.LIBSVM.parser(ParseOptions.defaults("t"));
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> Ingestor.ingestLines(settings, new InputLines(new ByteArrayInputStream(LINE.getBytes(StandardCharsets.UTF_8))), "t", parser));
        StringBuilder messages = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.append(t).append('\n');
        }
        assertTrue(messages.toString().contains("security.protocol"), messages.toString());
        assertTrue(e instanceof KafkaException || e instanceof IngestException, messages.toString());
    }
}
