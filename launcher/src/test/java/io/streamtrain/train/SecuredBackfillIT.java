package io.streamtrain.train;

import io.streamtrain.testing.KafkaFixture;
import org.junit.jupiter.api.Tag;

/**
 * {@link BackfillIT} against the secured broker ({@code streamtrain kafka --secure}): a backfill and the streaming run that continues it, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles.
 */
@Tag("extended") // the default build runs this path on the secured broker in RestrictedPrincipalIT
class SecuredBackfillIT extends BackfillIT {
    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }
}
