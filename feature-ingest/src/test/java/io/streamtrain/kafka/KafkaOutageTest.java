package io.streamtrain.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class KafkaOutageTest {

    @Test
    void timeoutsAndLostConnectionsAreOutagesMisconfigurationIsNot() {
        assertTrue(KafkaOutage.isOutage(new ExecutionException(new TimeoutException("Timed out waiting for a node assignment. Call: listNodes"))));
        assertTrue(KafkaOutage.isOutage(new DisconnectException("gone")));
        assertFalse(KafkaOutage.isOutage(new ExecutionException(new SaslAuthenticationException("bad password"))));
        assertFalse(KafkaOutage.isOutage(new TopicAuthorizationException("not allowed")));
        assertFalse(KafkaOutage.isOutage(new ConfigException("No resolvable bootstrap urls given in bootstrap.servers")));
        assertFalse(KafkaOutage.isOutage(new IllegalStateException("a bug")));
    }

    @Test
    void retryRepeatsACallThroughAnOutageUntilKafkaAnswers() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        KafkaOutage outage = new KafkaOutage("test", Duration.ofMinutes(1));
        long answer = outage.retry("asking", () -> {
            if (calls.incrementAndGet() < 3) {
                throw new ExecutionException(new TimeoutException("no broker"));
            }
            return 42L;
        });
        assertEquals(42L, answer);
        assertEquals(3, calls.get());
        assertFalse(outage.ongoing());
    }

    @Test
    void aMisconfigurationFailsAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        SaslAuthenticationException auth = new SaslAuthenticationException("Authentication failed: Invalid username or password");
        KafkaOutage outage = new KafkaOutage("test", Duration.ofMinutes(1));
        SaslAuthenticationException thrown = assertThrows(SaslAuthenticationException.class, () -> outage.retry("asking", () -> {
            calls.incrementAndGet();
            throw auth;
        }));
        assertSame(auth, thrown);
        assertEquals(1, calls.get());
    }

    @Test
    void anOutageLongerThanThePatienceEndsTheWaitWithAClearError() {
        KafkaOutage outage = new KafkaOutage("test", Duration.ofMillis(600));
        KafkaException e = assertThrows(KafkaException.class, () -> outage.retry("reading offsets", () -> {
            throw new TimeoutException("no broker");
        }));
        assertTrue(e.getMessage().contains("unreachable") && e.getMessage().contains("streamtrain.kafka.outage-patience"), e.getMessage());
        assertTrue(e.getCause() instanceof TimeoutException);
    }
}
