package io.streamtrain.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SqlScriptTest {
    @Test
    void splitsAtSemicolonsOutsideQuotesAndComments() {
        List<String> statements = SqlScript.statements("""
                -- a comment; with a semicolon
                SET 'a.b' = 'x;y';
                /* block; comment */ CREATE TABLE t (`we;ird` INT) WITH ('k' = 'it''s; fine');
                SELECT "q;uoted" FROM t
                """, Map.of());
        assertEquals(List.of(
                "SET 'a.b' = 'x;y'",
                "CREATE TABLE t (`we;ird` INT) WITH ('k' = 'it''s; fine')",
                "SELECT \"q;uoted\" FROM t"), statements);
    }

    @Test
    void kafkaPropertiesBecomeWithClauseEntriesThatATableDefinitionTakesWithOrWithoutAFile() {
        String table = "CREATE TABLE t (x INT) WITH (${kafka-properties} 'connector' = 'kafka')";
        Map<String, String> secured = new java.util.TreeMap<>(Map.of("security.protocol", "SASL_SSL",
                "sasl.jaas.config", "ScramLoginModule required username=\"u\" password=\"it's\";"));
        assertEquals(List.of("CREATE TABLE t (x INT) WITH ('properties.sasl.jaas.config' = 'ScramLoginModule required"
                        + " username=\"u\" password=\"it''s\";', 'properties.security.protocol' = 'SASL_SSL',  'connector' = 'kafka')"),
                SqlScript.statements(table, Map.of(SqlScript.KAFKA_PROPERTIES_VARIABLE, SqlScript.tableOptions(secured))));
        assertEquals(List.of("CREATE TABLE t (x INT) WITH ( 'connector' = 'kafka')"),
                SqlScript.statements(table, Map.of(SqlScript.KAFKA_PROPERTIES_VARIABLE, SqlScript.tableOptions(Map.of()))));
    }

    @Test
    void keepsAStatementSetWhole() {
        List<String> statements = SqlScript.statements("""
                EXECUTE STATEMENT SET BEGIN
                  INSERT INTO a SELECT * FROM s;
                  INSERT INTO b SELECT * FROM s;
                END;
                SELECT 1;
                """, Map.of());
        assertEquals(2, statements.size(), statements.toString());
        assertTrue(statements.get(0).startsWith("EXECUTE STATEMENT SET BEGIN") && statements.get(0).endsWith("END"), statements.get(0));
        assertTrue(statements.get(0).contains("INSERT INTO a SELECT * FROM s;"), statements.get(0));
        assertEquals("SELECT 1", statements.get(1));
    }

    @Test
    void replacesDefinedVariablesAndRejectsUndefinedOnes() {
        assertEquals(List.of("SELECT * FROM clicks WHERE x = '127.0.0.1:9092'"),
                SqlScript.statements("SELECT * FROM ${topic} WHERE x = '${bootstrap}';", Map.of("topic", "clicks", "bootstrap", "127.0.0.1:9092")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SqlScript.statements("SELECT ${missing}", Map.of()));
        assertTrue(e.getMessage().contains("-Dmissing=VALUE"), e.getMessage());
    }

    @Test
    void anUnterminatedQuoteIsAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SqlScript.statements("SELECT 'oops;", Map.of()));
        assertTrue(e.getMessage().contains("unterminated"), e.getMessage());
    }
}
