package io.streamtrain.sql;

import io.streamtrain.testing.KafkaFixture;

/**
 * {@link SqlTrainingIT} against the secured broker ({@code streamtrain kafka --secure}): a SQL job (Flink's Kafka connector and the streamtrain connector) across an injected failure, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles.
 */
class SecuredSqlTrainingIT extends SqlTrainingIT {
    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }
}
