package io.streamtrain.sql;

import io.streamtrain.cluster.ClusterOnlySettings;
import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.config.SettingsCheck;
import io.streamtrain.train.RequiredFlinkSettings;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * A streaming TableEnvironment that submits to a Flink cluster's REST endpoint, set up the way the
 * training loop needs it (retained RocksDB checkpoints: {@link RequiredFlinkSettings}),
 * with the streamtrain connector and STREAMTRAIN_PREDICT available. Runs statements one by one:
 * DDL and SET take effect, queries print their rows, INSERTs (and statement sets) are submitted
 * and their jobs returned.
 */
public final class SqlSession {
    private static final Pattern SET = Pattern.compile("(?is)SET\\s+('(?:[^']|'')*')\\s*=\\s*('(?:[^']|'')*')");
    private static final Pattern RESET = Pattern.compile("(?is)RESET\\s+('(?:[^']|'')*')");

    private final TableEnvironment tables;
    private final PrintStream out;

    public SqlSession(Configuration conf, URI rest, PrintStream out) {
        Configuration c = RequiredFlinkSettings.apply(conf);
        c.set(DeploymentOptions.TARGET, "remote");
        c.set(RestOptions.ADDRESS, rest.getHost());
        c.set(RestOptions.PORT, rest.getPort());
        this.tables = TableEnvironment.create(EnvironmentSettings.newInstance().inStreamingMode().withConfiguration(c).build());
        PredictFunction.register(tables);
        this.out = out;
    }

    public TableEnvironment tables() {
        return tables;
    }

    /** Runs each statement in order; the jobs INSERTs submitted. A failing statement throws, naming its number. */
    public List<JobClient> run(List<String> statements) {
        List<JobClient> jobs = new ArrayList<>();
        for (int i = 0; i < statements.size(); i++) {
            String statement = statements.get(i);
            TableResult result;
            try {
                if (setOrReset(statement)) {
                    continue;
                }
                result = tables.executeSql(statement);
            } catch (RuntimeException e) {
                throw new SqlStatementException(i + 1, statement, e);
            }
            if (result.getJobClient().isPresent() && result.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT
                    && !isQuery(statement)) {
                JobClient job = result.getJobClient().get();
                jobs.add(job);
                out.println("sql: statement " + (i + 1) + " submitted job " + job.getJobID());
            } else if (result.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT) {
                printRows(result);
            } else {
                out.println("sql: statement " + (i + 1) + " ok: " + firstLine(statement));
            }
        }
        return jobs;
    }

    /**
     * {@code SET 'key' = 'value'} and {@code RESET 'key'}: the SQL client's configuration
     * statements, which TableEnvironment leaves to its clients. They apply to the statements after them.
     * A SET is checked as the command line's settings are: a bad value fails it. A SET of a
     * file-system setting is left out and named ({@link ClusterOnlySettings}).
     */
    private boolean setOrReset(String statement) {
        Matcher set = SET.matcher(statement);
        if (set.matches()) {
            if (ClusterOnlySettings.isClusterOnly(unquote(set.group(1)))) { // the jobs cannot use it, and a key would show in them
                out.println(ClusterOnlySettings.leftOut("sql", List.of(unquote(set.group(1)))));
                return true;
            }
            SettingsCheck.check(Map.of(unquote(set.group(1)), unquote(set.group(2)))).orThrow()
                    .warnings().forEach(w -> out.println("sql: warning: " + w));
            tables.getConfig().getConfiguration().setString(unquote(set.group(1)), unquote(set.group(2)));
            String key = unquote(set.group(1));
            out.println("sql: set " + key + " = " + (KafkaClientProperties.isSecret(key) ? KafkaClientProperties.HIDDEN : unquote(set.group(2))));
            return true;
        }
        Matcher reset = RESET.matcher(statement);
        if (reset.matches()) {
            tables.getConfig().getConfiguration().removeKey(unquote(reset.group(1)));
            out.println("sql: reset " + unquote(reset.group(1)));
            return true;
        }
        return false;
    }

    private static String unquote(String quoted) {
        return quoted.substring(1, quoted.length() - 1).replace("''", "'");
    }

    /** A query's rows, tab-separated under a header: easy to read and to pipe. */
    private void printRows(TableResult result) {
        out.println(String.join("\t", result.getResolvedSchema().getColumnNames()));
        try (CloseableIterator<Row> rows = result.collect()) {
            while (rows.hasNext()) {
                Row row = rows.next();
                StringBuilder line = new StringBuilder();
                for (int f = 0; f < row.getArity(); f++) {
                    line.append(f == 0 ? "" : "\t").append(row.getField(f));
                }
                out.println(line);
            }
        } catch (Exception e) {
            throw new IllegalStateException("reading the query's rows failed: " + e.getMessage(), e);
        }
    }

    private static boolean isQuery(String statement) {
        String s = statement.stripLeading().toUpperCase();
        return s.startsWith("SELECT") || s.startsWith("WITH") || s.startsWith("VALUES") || s.startsWith("SHOW")
                || s.startsWith("DESC") || s.startsWith("EXPLAIN");
    }

    /** A table option {@code 'key' = 'value'} in a statement: a secret's value is not shown. */
    private static final Pattern TABLE_OPTION = Pattern.compile("'((?:[^']|'')*)'(\\s*=\\s*)'((?:[^']|'')*)'");

    private static String firstLine(String statement) {
        Matcher option = TABLE_OPTION.matcher(statement);
        String shown = option.replaceAll(m -> Matcher.quoteReplacement("'" + m.group(1) + "'" + m.group(2) + "'"
                + (KafkaClientProperties.isSecret(m.group(1)) ? KafkaClientProperties.HIDDEN : m.group(3)) + "'"));
        String line = shown.lines().findFirst().orElse("").strip();
        return line.length() > 80 ? line.substring(0, 77) + "..." : line;
    }

    /** A statement of a script failed: which one, and why. */
    public static final class SqlStatementException extends RuntimeException {
        public SqlStatementException(int number, String statement, RuntimeException cause) {
            super("statement " + number + " failed: " + rootMessage(cause) + "\n  " + firstLine(statement), cause);
        }

        private static String rootMessage(Throwable e) {
            String message = e.getMessage();
            while (e.getCause() != null) {
                e = e.getCause();
                if (e.getMessage() != null) {
                    message = e.getMessage();
                }
            }
            return message;
        }
    }
}
