package io.streamtrain.sql;

import io.streamtrain.train.RequiredFlinkSettings;
import io.streamtrain.train.TrainingOptions;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.table.gateway.SqlGateway;
import org.apache.flink.table.gateway.service.context.DefaultContext;
import org.apache.flink.table.gateway.service.session.SessionManager;

/**
 * Flink's own SQL Gateway (its REST endpoint, {@code /v1/sessions/…/statements}) in this JVM,
 * submitting to a Flink cluster's REST endpoint, with the training loop's required settings as
 * every session's defaults. The streamtrain connector is on the classpath; a session makes
 * STREAMTRAIN_PREDICT with {@code CREATE TEMPORARY SYSTEM FUNCTION STREAMTRAIN_PREDICT AS 'io.streamtrain.sql.PredictFunction'}.
 * Kafka client properties given to the gateway are every session's {@code streamtrain.kafka.properties.<key>}:
 * every client a streamtrain table's job makes gets them.
 */
public final class Gateway implements AutoCloseable {
    private final SqlGateway gateway;

    public Gateway(URI flinkRest, String bindAddress, int port, Map<String, String> kafkaProperties) throws Exception {
        Configuration c = RequiredFlinkSettings.apply(new Configuration());
        TrainingOptions.addKafkaProperties(c, kafkaProperties);
        c.set(DeploymentOptions.TARGET, "remote");
        c.set(RestOptions.ADDRESS, flinkRest.getHost());
        c.set(RestOptions.PORT, flinkRest.getPort());
        c.setString("sql-gateway.endpoint.type", "rest");
        c.setString("sql-gateway.endpoint.rest.address", bindAddress);
        c.setString("sql-gateway.endpoint.rest.bind-address", bindAddress);
        c.setString("sql-gateway.endpoint.rest.port", Integer.toString(port));
        gateway = new SqlGateway(c, SessionManager.create(new DefaultContext(c, List.of())));
        gateway.start();
    }

    @Override
    public void close() {
        gateway.stop();
    }
}
