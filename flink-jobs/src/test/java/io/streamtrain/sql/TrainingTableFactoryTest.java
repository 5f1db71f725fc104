package io.streamtrain.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TopicOptions;
import io.streamtrain.train.TrainingOptions;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;

/** The connector's options through the real planner: each mistake fails the statement, naming it. */
class TrainingTableFactoryTest {
    private final TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());

    @Test
    void tableKeysAreTheTrainingOptionsShortNames() {
        Configuration conf = TrainingTableOptions.trainingConfiguration(
                Map.of("model", "lr", "dim", "16", "batch-size", "32", "kafka.bootstrap-servers", "k:9", "learning-rate", "0.5"), Map.of(), "m");
        assertEquals(ModelKind.LR, conf.get(TrainingOptions.MODEL));
        assertEquals(16, conf.get(PsOptions.DIM));
        assertEquals(32, conf.get(TrainingOptions.BATCH_SIZE));
        assertEquals("k:9", conf.get(TrainingOptions.BOOTSTRAP));
        assertEquals(0.5f, conf.get(PsOptions.LEARNING_RATE), 1e-6);
        assertEquals("m", conf.get(TrainingOptions.NAME), "the table's name names the job");
        assertEquals("m.examples", conf.get(TrainingOptions.TOPIC), "the staging topic defaults to <table>.examples");
        assertTrue(TrainingTableOptions.tableOptions().stream().noneMatch(o -> o.key().equals("start-offsets")),
                "where the loop starts is the sink's business");
    }

    @Test
    void propertiesKeysAreKafkaClientPropertiesOfTheJob() {
        Configuration conf = TrainingTableOptions.trainingConfiguration(
                Map.of("properties.security.protocol", "SASL_SSL", "properties.sasl.mechanism", "SCRAM-SHA-512"), Map.of(), "m");
        assertEquals(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512"), conf.get(TrainingOptions.KAFKA_PROPERTIES));
        assertEquals("SASL_SSL", TrainingOptions.kafka(conf).client().properties().getProperty("security.protocol"));
        assertTrue(TrainingTableOptions.tableOptions().stream().noneMatch(o -> o.key().equals("kafka.properties")),
                "one way to give a client property: 'properties.<key>'");
    }

    @Test
    void topicOptionsAreTableKeysAndTheSessionsKafkaPropertiesAreTheDefaults() {
        Configuration conf = TrainingTableOptions.trainingConfiguration(
                Map.of("topics.dead-letter.retention", "2 d", "properties.sasl.mechanism", "PLAIN"),
                Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512"), "m");
        assertEquals(Duration.ofDays(2), conf.get(TopicOptions.DEAD_LETTER_RETENTION));
        assertEquals(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN"), conf.get(TrainingOptions.KAFKA_PROPERTIES),
                "the table's 'properties.<key>' win over the session's");
    }

    @Test
    void aKafkaClientPropertyPassesTheTablesOptionCheck() {
        String error = failure("'properties.security.protocol' = 'SASL_SSL'", "label INT, a STRING");
        assertTrue(!error.contains("Unsupported options") && error.contains("checkpoints"),
                "planning got past the option check to the job's own checks: " + error);
    }

    @Test
    void anUnknownOptionIsRejectedWithItsName() {
        String error = failure("'dimm' = '8'", "label INT, a STRING");
        assertTrue(error.contains("dimm") && error.contains("Unsupported options"), error);
    }

    @Test
    void aBadValueIsRejectedWithTheTableKey() {
        String error = failure("'dim' = 'eight'", "label INT, a STRING");
        assertTrue(error.contains("'dim'") && error.contains("eight"), error);
    }

    @Test
    void aValueOutsideItsRangeIsRejectedWithTableKeyValueAndRange() {
        String error = failure("'batch-size' = '-3'", "label INT, a STRING");
        assertTrue(error.contains("option 'batch-size' (streamtrain.train.batch-size = '-3': must be >= 1)"), error);
        String partitions = failure("'staging-partitions' = '0'", "label INT, a STRING");
        assertTrue(partitions.contains("'staging-partitions' = '0': must be >= 1"), partitions);
    }

    @Test
    void anUnknownModelOrOptimizerIsRejected() {
        String model = failure("'model' = 'xgboost'", "label INT, a STRING");
        assertTrue(model.contains("xgboost"), model);
        String optimizer = failure("'optimizer' = 'lion'", "label INT, a STRING");
        assertTrue(optimizer.contains("lion"), optimizer);
    }

    @Test
    void aTableWithoutLabelColumnOrMappingIsRejected() {
        String error = failure("'model' = 'fm'", "clicked INT, a STRING");
        assertTrue(error.contains("'label'"), error);
    }

    @Test
    void aColumnTypeThatCannotBeAFeatureIsRejected() {
        String error = failure("'model' = 'fm'", "label INT, t MAP<STRING, STRING>");
        assertTrue(error.contains("column t") && error.contains("cannot be a feature"), error);
    }

    /** The message chain of planning an INSERT into a streamtrain table with these options and columns. */
    private String failure(String options, String columns) {
        String name = "t" + System.nanoTime();
        tables.executeSql("CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = 'streamtrain', " + options + ")");
        String select = columns.contains("MAP") ? "SELECT 1, MAP['k', 'v']" : "SELECT 1, 'x'";
        Throwable e = assertThrows(Exception.class, () -> tables.explainSql("INSERT INTO " + name + " " + select));
        StringBuilder messages = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
