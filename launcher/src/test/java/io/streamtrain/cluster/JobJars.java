package io.streamtrain.cluster;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/** The job jar the build makes, and the class path of a cluster that has Flink's own modules only. */
final class JobJars {
    /** Where flink-jobs' package phase writes it (its shade plugin's finalName). */
    static final Path JOB_JAR = Path.of("").toAbsolutePath().getParent().resolve("flink-jobs/target/streamtrain-job.jar");

    /**
     * What a Flink distribution's lib/ lacks and the job jar must bring (the Kafka connector and
     * client, Avro and its Flink format), and what is the project's own or only the tests': left off
     * the cluster's class path, so that a class missing from the jar fails the job.
     */
    private static final List<String> NOT_ON_A_CLUSTER = List.of(
            "/org/apache/flink/flink-connector-kafka/", "/org/apache/flink/flink-connector-base/",
            "/org/apache/flink/flink-avro/", "/org/apache/flink/flink-state-processor-api/",
            "/org/apache/kafka/", "/org/apache/avro/", "/ai/djl/", "/info/picocli/", "/org/testcontainers/",
            "/com/tngtech/", "/org/junit/", "/org/opentest4j/", "/org/scala-lang/");

    private JobJars() {}

    /** The job jar; the test is skipped (with how to build it) when the build has not packaged it. */
    static Path jobJar() {
        Assumptions.assumeTrue(Files.isRegularFile(JOB_JAR),
                JOB_JAR + " is not built: `./mvnw verify` packages flink-jobs before the launcher's tests run");
        return JOB_JAR;
    }

    /** This JVM's class path without the project's modules and without what {@link #NOT_ON_A_CLUSTER} names. */
    static String flinkOnlyClassPath() {
        String repository = JOB_JAR.getParent().getParent().getParent().toString() + File.separator;
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).toAbsolutePath().toString().startsWith(repository))
                .filter(entry -> NOT_ON_A_CLUSTER.stream().noneMatch(entry::contains))
                .collect(Collectors.joining(File.pathSeparator));
    }
}
