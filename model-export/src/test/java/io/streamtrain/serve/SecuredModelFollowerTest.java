package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.testing.KafkaFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@link ModelFollowerTest} against the secured broker ({@code streamtrain kafka --secure}): {@code serve --follow}, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles; and without
 * client properties, {@code serve --follow} ends within seconds, naming the security protocol.
 */
class SecuredModelFollowerTest extends ModelFollowerTest {
    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }

    @Test
    void serveFollowWithoutClientPropertiesEndsWithinSecondsNamingTheSecurityProtocol() {
        StringWriter err = new StringWriter();
        long t0 = System.nanoTime();
        int code = new CommandLine(new ServeCommand()).setErr(new PrintWriter(err, true)).execute("--bundle", bundle.toString(),
                "--port", "0", "--follow", "never.updates", "--bootstrap", kafka.bootstrapServers(),
                "--store", dir.resolve("store-without-credentials").toString());
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertEquals(1, code, err.toString());
        assertTrue(err.toString().contains("security.protocol is PLAINTEXT"), err.toString());
        assertTrue(seconds < 10, "took " + seconds + " s: " + err);
    }
}
