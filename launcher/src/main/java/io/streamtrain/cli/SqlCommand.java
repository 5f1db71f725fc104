package io.streamtrain.cli;

import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.sql.SqlScript;
import io.streamtrain.sql.SqlSession;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.LocalFlink;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain sql -f job.sql}: runs a SQL script on a local Flink cluster or a remote one. */
@Command(name = "sql", mixinStandardHelpOptions = true,
        description = "Runs a script of Flink SQL statements (SET, RESET, CREATE TABLE/FUNCTION/VIEW, INSERT, EXECUTE STATEMENT SET, "
                + "SELECT, ...) in order. The 'streamtrain' connector and STREAMTRAIN_PREDICT are available. ${name} in the script "
                + "is replaced by -Dname=value. Without --jobmanager, a Flink cluster starts in this process and the command waits "
                + "for the submitted jobs (Ctrl-C stops them; their checkpoints are retained). With --jobmanager, jobs are "
                + "submitted to that session cluster's REST endpoint and the command returns.")
public final class SqlCommand implements Callable<Integer> {
    private static final Duration STATUS_EVERY = Duration.ofSeconds(30);

    @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE", description = "The SQL script.")
    Path file;

    @Option(names = "-D", paramLabel = "NAME=VALUE", description = "A script variable: ${NAME} becomes VALUE.")
    Map<String, String> defines = new TreeMap<>();

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE",
            description = "Kafka client properties file (Kafka's format, as its tools' --command-config): defines ${"
                    + SqlScript.KAFKA_PROPERTIES_VARIABLE + "} as its entries, 'properties.<key>' = 'value', each followed by a comma,"
                    + " for the WITH clause of each Kafka table (empty without a file); and the session's"
                    + " streamtrain.kafka.properties.<key>, which every client of a streamtrain table's job gets.")
    Path kafkaProperties;

    @Option(names = "--jobmanager", paramLabel = "HOST:PORT", description = "REST endpoint of a Flink session cluster (default: a local cluster in this process).")
    String jobManager;

    @Option(names = "--parallelism", defaultValue = "2", description = "Slots of the local cluster (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = "--detach", description = "Return once the jobs are submitted (a local cluster stops with the command, so only with --jobmanager).")
    boolean detach;

    @Override
    public Integer call() throws Exception {
        if (detach && jobManager == null) {
            System.err.println("sql: --detach needs --jobmanager (the local cluster lives only as long as this command)");
            return 2;
        }
        Map<String, String> clientProperties = KafkaClientProperties.load(kafkaProperties);
        Map<String, String> variables = new TreeMap<>(defines);
        variables.putIfAbsent(SqlScript.KAFKA_PROPERTIES_VARIABLE, SqlScript.tableOptions(clientProperties));
        List<String> statements = SqlScript.statements(Files.readString(file), variables);
        System.out.println("sql: " + statements.size() + " statements from " + file);
        if (jobManager != null) {
            URI rest = URI.create("http://" + jobManager);
            List<JobClient> jobs = run(rest, statements, clientProperties);
            System.out.println("sql: " + jobs.size() + " job(s) submitted to " + rest + (detach ? "" : "; following them"));
            return detach ? 0 : await(jobs);
        }
        try (LocalFlink flink = new LocalFlink(new Configuration(), parallelism)) {
            System.out.println("sql: local Flink cluster, " + parallelism + " slots, web UI at " + flink.restAddress());
            List<JobClient> jobs = run(flink.restAddress(), statements, clientProperties);
            return await(jobs);
        }
    }

    private static List<JobClient> run(URI rest, List<String> statements, Map<String, String> kafkaProperties) {
        Configuration session = new Configuration();
        TrainingOptions.addKafkaProperties(session, kafkaProperties);
        return new SqlSession(session, rest, System.out).run(statements);
    }

    /** Waits for every job to end, with a status line now and then; 0 when all finished. */
    private static int await(List<JobClient> jobs) throws Exception {
        int failed = 0;
        for (JobClient job : jobs) {
            JobStatus status;
            long next = System.nanoTime() + STATUS_EVERY.toNanos();
            while (!(status = job.getJobStatus().get()).isGloballyTerminalState()) {
                if (System.nanoTime() > next) {
                    System.out.println("sql: job " + job.getJobID() + " " + status);
                    next = System.nanoTime() + STATUS_EVERY.toNanos();
                }
                Thread.sleep(500);
            }
            System.out.println("sql: job " + job.getJobID() + " " + status);
            failed += status == JobStatus.FINISHED ? 0 : 1;
        }
        return failed == 0 ? 0 : 1;
    }
}
