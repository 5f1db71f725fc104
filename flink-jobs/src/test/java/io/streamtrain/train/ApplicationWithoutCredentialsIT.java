package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.testing.KafkaFixture;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

/**
 * The training job as a cluster runs it ({@link TrainingApplication}, also a backfill's) against
 * the secured broker with client properties that do not fit it: its main fails within seconds,
 * naming the problem, before any job is submitted.
 */
class ApplicationWithoutCredentialsIT {
    private final KafkaFixture kafka = KafkaFixture.secured();

    @Test
    void withoutClientPropertiesTheJobsMainFailsWithinSecondsNamingTheSecurityProtocol() {
        assertFailsFast(Map.of(), "security.protocol is PLAINTEXT");
    }

    @Test
    void withAWrongPasswordTheJobsMainFailsWithinSecondsNamingTheAuthentication() {
        Map<String, String> wrong = kafka.secureBroker().saslConnection("streamtrain", "not-the-password").clientProperties();
        assertFailsFast(wrong, "authentication failed (SaslAuthenticationException)");
    }

    private void assertFailsFast(Map<String, String> clientProperties, String named) {
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, "never-" + System.nanoTime());
        conf.set(TrainingOptions.KAFKA_PROPERTIES, clientProperties);
        long t0 = System.nanoTime();
        KafkaException e = assertThrows(KafkaException.class,
                () -> TrainingApplication.execute(StreamExecutionEnvironment.getExecutionEnvironment(), conf));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(e.getMessage().contains(named), e.getMessage());
        assertTrue(seconds < 10, "failed after " + seconds + " s: " + e.getMessage());
    }
}
