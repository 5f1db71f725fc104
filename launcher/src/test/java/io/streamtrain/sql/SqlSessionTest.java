package io.streamtrain.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** A script's SET statements are checked as the command line's settings are, before any job is submitted. */
class SqlSessionTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final SqlSession session = new SqlSession(new Configuration(), URI.create("http://127.0.0.1:1"), new PrintStream(out, true));

    @Test
    void aSetWithABadValueFailsItsStatementNamingKeyValueAndType() {
        SqlSession.SqlStatementException e = assertThrows(SqlSession.SqlStatementException.class,
                () -> session.run(List.of("SET 'execution.checkpointing.interval' = '1 s'", "SET 'execution.checkpointing.interval' = 'banana'")));
        assertTrue(e.getMessage().startsWith("statement 2 failed: invalid setting execution.checkpointing.interval = 'banana':"
                + " must be a duration"), e.getMessage());
        assertEquals(java.time.Duration.ofSeconds(1), session.tables().getConfig().get(CheckpointingOptions.CHECKPOINTING_INTERVAL),
                "the bad value was not set");
    }

    @Test
    void aSetOfAnUnknownKeyIsAppliedWithAWarning() {
        session.run(List.of("SET 'execution.checkpointing.intervall' = '1 s'"));
        assertTrue(out.toString().contains("sql: warning: execution.checkpointing.intervall: not a configuration key"), out.toString());
    }

    @Test
    void secretsInASetOrATableDefinitionAreNotPrinted() {
        session.run(List.of("SET 'streamtrain.kafka.properties.sasl.jaas.config' = 'ScramLoginModule required password=\"hunter2\";'",
                "CREATE TABLE t (x INT) WITH ('properties.ssl.truststore.password' = 'hunter2', 'connector' = 'datagen')"));
        String printed = out.toString();
        assertTrue(printed.contains("sql: set streamtrain.kafka.properties.sasl.jaas.config = ******"), printed);
        assertTrue(printed.contains("'properties.ssl.truststore.password' = '******'"), printed);
        assertFalse(printed.contains("hunter2"), printed);
    }

    @Test
    void aSetOfAFileSystemSettingIsLeftOutAndNamedWithoutItsValue() {
        session.run(List.of("SET 's3.secret-key' = 'hunter2'", "SET 's3.endpoint' = 'http://127.0.0.1:9000'"));
        String printed = out.toString();
        assertFalse(session.tables().getConfig().getConfiguration().containsKey("s3.secret-key"), "the key is not in the jobs' configuration");
        assertFalse(session.tables().getConfig().getConfiguration().containsKey("s3.endpoint"));
        assertTrue(printed.contains("sql: left out of the submitted job's configuration: s3.secret-key (file-system settings take effect"
                + " only when a Flink process starts: the session cluster's own configuration must carry them)"), printed);
        assertFalse(printed.contains("hunter2"), printed);
    }
}
