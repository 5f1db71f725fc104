package io.streamtrain.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SQL script as statements: split at semicolons outside quotes and comments, with
 * {@code EXECUTE STATEMENT SET BEGIN … END;} kept whole, and {@code ${name}} replaced by defined
 * values (so example scripts need no edits per machine). An undefined name is an error, not an
 * empty string.
 */
public final class SqlScript {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)}");
    private static final Pattern STATEMENT_SET = Pattern.compile("(?is)^(EXECUTE\\s+)?STATEMENT\\s+SET\\s+BEGIN\\b.*|^BEGIN\\s+STATEMENT\\s+SET\\b.*");
    private static final Pattern SET_END = Pattern.compile("(?is).*\\bEND\\s*$");

    /**
     * The variable {@code sql --kafka-properties} defines: the file's properties as WITH-clause
     * entries, each followed by a comma ({@code 'properties.security.protocol' = 'SASL_SSL', }), or
     * nothing without a file; a Kafka table writes {@code WITH (${kafka-properties} 'connector' = ...)}.
     */
    public static final String KAFKA_PROPERTIES_VARIABLE = "kafka-properties";

    private SqlScript() {}

    /** Kafka client properties as the WITH-clause entries of a Kafka table (Flink's and the streamtrain connector's {@code 'properties.<key>'}). */
    public static String tableOptions(Map<String, String> kafkaProperties) {
        StringBuilder out = new StringBuilder();
        kafkaProperties.forEach((k, v) -> out.append(literal("properties." + k)).append(" = ").append(literal(v)).append(", "));
        return out.toString();
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    public static List<String> statements(String script, Map<String, String> defines) {
        return split(substitute(script, defines));
    }

    static String substitute(String script, Map<String, String> defines) {
        Matcher m = VARIABLE.matcher(script);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = defines.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("the script uses ${" + m.group(1) + "}: define it with -D" + m.group(1) + "=VALUE");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    static List<String> split(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int i = 0;
        int n = script.length();
        while (i < n) {
            char c = script.charAt(i);
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                int end = script.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
                current.append('\n');
            } else if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
                int end = script.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated /* comment");
                }
                i = end + 2;
                current.append(' ');
            } else if (c == '\'' || c == '"' || c == '`') {
                int end = closing(script, i, c);
                current.append(script, i, end + 1);
                i = end + 1;
            } else if (c == ';') {
                String statement = current.toString().strip();
                if (STATEMENT_SET.matcher(statement).matches() && !SET_END.matcher(statement).matches()) {
                    current.append(';');
                } else {
                    if (!statement.isEmpty()) {
                        statements.add(statement);
                    }
                    current.setLength(0);
                }
                i++;
            } else {
                current.append(c);
                i++;
            }
        }
        String last = current.toString().strip();
        if (!last.isEmpty()) {
            statements.add(last);
        }
        return statements;
    }

    /** The index of the quote closing the one at {@code open}; a doubled quote is an escaped one. */
    private static int closing(String s, int open, char quote) {
        int i = open + 1;
        while (i < s.length()) {
            if (s.charAt(i) == quote) {
                if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i;
            }
            i++;
        }
        throw new IllegalArgumentException("unterminated " + quote + " quote starting at character " + open);
    }
}
