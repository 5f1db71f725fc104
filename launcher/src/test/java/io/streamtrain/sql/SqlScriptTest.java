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
