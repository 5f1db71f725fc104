package io.streamtrain.join;

import io.streamtrain.testing.KafkaFixture;

/**
 * {@link JoinIT} against the secured broker ({@code streamtrain kafka --secure}): the joiner, across an injected failure, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles.
 */
class SecuredJoinIT extends JoinIT {
    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }
}
