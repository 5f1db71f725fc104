package io.streamtrain.cli;

import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.sql.Gateway;
import io.streamtrain.train.run.LocalFlink;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain sql-gateway}: Flink's SQL Gateway REST endpoint with the streamtrain connector and function. */
@Command(name = "sql-gateway", mixinStandardHelpOptions = true,
        description = "Starts Flink's SQL Gateway (REST API: POST /v1/sessions, then /v1/sessions/{session}/statements) on "
                + "127.0.0.1 until Ctrl-C, with the 'streamtrain' connector and io.streamtrain.sql.PredictFunction on its "
                + "classpath. Jobs go to a local Flink cluster in this process, or to --jobmanager.")
public final class SqlGatewayCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "8083", description = "Gateway REST port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--bind", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
    String bind;

    @Option(names = "--jobmanager", paramLabel = "HOST:PORT", description = "REST endpoint of a Flink session cluster (default: a local cluster in this process).")
    String jobManager;

    @Option(names = "--parallelism", defaultValue = "2", description = "Slots of the local cluster (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = KafkaClientProperties.OPTION, paramLabel = "FILE",
            description = "Kafka client properties file (Kafka's format, as its tools' --command-config): every session's"
                    + " streamtrain.kafka.properties.<key>, for every Kafka client of the jobs of its streamtrain tables (a"
                    + " table's 'properties.<key>' win). Flink's own 'kafka' connector reads only its table's 'properties.<key>'.")
    Path kafkaProperties;

    @Override
    public Integer call() throws Exception {
        LocalFlink local = jobManager == null ? new LocalFlink(new Configuration(), parallelism) : null;
        URI flink = local != null ? local.restAddress() : URI.create("http://" + jobManager);
        try (Gateway gateway = new Gateway(flink, bind, port, KafkaClientProperties.load(kafkaProperties))) {
            System.out.println("sql-gateway: REST endpoint http://" + bind + ":" + port + "/v1 submitting to Flink at " + flink
                    + (local != null ? " (local, " + parallelism + " slots)" : ""));
            System.out.println("sql-gateway: e.g. curl -X POST http://" + bind + ":" + port + "/v1/sessions -H 'Content-Type: application/json' -d '{}'");
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        } finally {
            if (local != null) {
                local.close();
            }
        }
        return 0;
    }
}
