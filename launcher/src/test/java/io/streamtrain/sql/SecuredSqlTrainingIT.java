package io.streamtrain.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtrain.kafka.Topics;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.JobMonitor;
import io.streamtrain.train.run.LocalFlink;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SqlTrainingIT} against the secured broker ({@code streamtrain kafka --secure}): a SQL job (Flink's Kafka connector and the streamtrain connector) across an injected failure, with
 * every Kafka client over SASL_SSL (SCRAM-SHA-512) as a user that ACLs allow, and the same oracles. Through
 * {@code sql-gateway --kafka-properties}, a streamtrain table without client properties of its own gets the
 * gateway's for every client of its job, and takes the {@code topics.*} options; without any, its INSERT
 * fails within seconds, naming the security protocol.
 */
class SecuredSqlTrainingIT extends SqlTrainingIT {
    private static final int ROWS = 1_000;

    @Override
    KafkaFixture kafka() {
        return KafkaFixture.secured();
    }

    @Test
    void throughTheGatewayAStreamtrainTableGetsTheGatewaysKafkaPropertiesAndItsTopicOptions(@TempDir Path checkpoints) throws Exception {
        String clicks = "sql-gw-clicks-" + System.nanoTime();
        String model = "gw" + System.nanoTime();
        Map<Long, Long> trueCounts = produceClicks(clicks, ROWS);
        String script = SCRIPT.replace("${options}", "'topics.dead-letter.retention' = '2 d', 'topics.feedback.retention' = '3 d'");
        Map<String, String> defines = Map.of("checkpoints", checkpoints.toUri().toString(), "clicks", clicks,
                "bootstrap", kafka.bootstrapServers(), "model", model,
                // Flink's Kafka connector reads only its table's options; the streamtrain table has none of its own
                SqlScript.KAFKA_PROPERTIES_VARIABLE, SqlScript.tableOptions(kafka.clientProperties()),
                "model-kafka-properties", "");

        try (LocalFlink flink = new LocalFlink(new Configuration(), 2)) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            try (Gateway gateway = new Gateway(flink.restAddress(), "127.0.0.1", port, kafka.clientProperties())) {
                GatewayClient client = new GatewayClient(URI.create("http://127.0.0.1:" + port));
                String session = client.openSession();
                List<JsonNode> submitted = List.of();
                for (String statement : SqlScript.statements(script, defines)) {
                    submitted = client.execute(session, statement);
                }
                JobID job = JobID.fromHexString(submitted.get(0).path("fields").get(0).asText());
                try (JobMonitor monitor = new JobMonitor(flink.restAddress(), job)) {
                    SqlRuns.awaitTrained(kafka, monitor, model, ROWS, Duration.ofSeconds(90));
                }
            }
        }
        assertTrainedExactlyOnce(checkpoints, model, ROWS, trueCounts);
        try (Admin admin = Topics.admin(kafka.connection())) {
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(
                    new ConfigResource(ConfigResource.Type.TOPIC, model + ".examples.dlq"),
                    new ConfigResource(ConfigResource.Type.TOPIC, model + ".examples.feedback"))).all().get(30, TimeUnit.SECONDS);
            assertEquals(String.valueOf(Duration.ofDays(2).toMillis()),
                    configs.get(new ConfigResource(ConfigResource.Type.TOPIC, model + ".examples.dlq")).get("retention.ms").value());
            assertEquals(String.valueOf(Duration.ofDays(3).toMillis()),
                    configs.get(new ConfigResource(ConfigResource.Type.TOPIC, model + ".examples.feedback")).get("retention.ms").value());
        }
    }

    @Test
    void aStreamtrainTableWithoutClientPropertiesFailsItsInsertWithinSecondsNamingTheSecurityProtocol(@TempDir Path checkpoints)
            throws Exception {
        String model = "nocreds" + System.nanoTime();
        List<String> statements = SqlScript.statements("""
                SET 'execution.checkpointing.interval' = '1s';
                SET 'execution.checkpointing.dir' = '${checkpoints}';
                CREATE TABLE ${model} (label INT, user_id STRING) WITH ('connector' = 'streamtrain', 'kafka.bootstrap-servers' = '${bootstrap}');
                CREATE TABLE warm_up (label INT, user_id STRING) WITH ('connector' = 'blackhole');
                EXPLAIN INSERT INTO warm_up SELECT 1, 'u';
                INSERT INTO ${model} SELECT 1, 'u';
                """, Map.of("checkpoints", checkpoints.toUri().toString(), "model", model, "bootstrap", kafka.bootstrapServers()));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (LocalFlink flink = new LocalFlink(new Configuration(), 1)) {
            SqlSession session = new SqlSession(new Configuration(), flink.restAddress(), new PrintStream(log, true));
            session.run(statements.subList(0, 5)); // the planner warmed up on a plan of the same shape: what is timed is the sink's
            long t0 = System.nanoTime();
            SqlSession.SqlStatementException e = assertThrows(SqlSession.SqlStatementException.class, () -> session.run(statements.subList(5, 6)));
            double seconds = (System.nanoTime() - t0) / 1e9;
            String messages = messages(e);
            assertTrue(messages.contains("security.protocol is PLAINTEXT"), messages);
            assertTrue(seconds < 10, "failed after " + seconds + " s: " + messages);
            assertFalse(log.toString().contains("submitted job"), log.toString());
        }
    }

    private static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getMessage()).append('\n');
        }
        return s.toString();
    }
}
