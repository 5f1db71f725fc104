package io.streamtrain.serve;

import io.streamtrain.testing.KafkaFixture;

/**
 * {@link ModelFollowerTest} against the secured broker ({@code streamtrain kafka --secure}): {@code serve --follow}, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles.
 */
class SecuredModelFollowerTest extends ModelFollowerTest {
    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }
}
