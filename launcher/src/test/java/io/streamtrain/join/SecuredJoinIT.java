package io.streamtrain.join;

import io.streamtrain.testing.KafkaFixture;
import org.junit.jupiter.api.Tag;

/**
 * {@link JoinIT} against the secured broker ({@code streamtrain kafka --secure}): the joiner, across an injected failure, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles.
 */
@Tag("extended") // the default build runs this path on the secured broker in RestrictedJoinIT
class SecuredJoinIT extends JoinIT {
    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }
}
