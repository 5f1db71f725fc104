package io.streamtrain.train;

import io.streamtrain.testing.KafkaFixture;
import org.junit.jupiter.api.Tag;

/**
 * {@link ExactlyOnceIT} against the secured broker ({@code streamtrain kafka --secure}): the count oracle across injected failures and a resume, the export and the published model updates, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles.
 */
@Tag("extended") // the default build runs this path on the secured broker in RestrictedPrincipalIT and SecuredCommandsIT
class SecuredExactlyOnceIT extends ExactlyOnceIT {
    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }
}
