package io.streamtrain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The job jar a Flink cluster takes: the jobs and the SQL connector with what a cluster lacks (DJL's
 * API and PyTorch engine for the deep models' tower among it), and nothing of Flink's own, nor
 * PyTorch's natives, which come with the cluster.
 */
class JobJarTest {
    /** Flink's REST upload takes 100 MiB; the issue asks for at most 60 MB. */
    private static final long MAX_BYTES = 60_000_000L;

    @Test
    void holdsTheJobsTheConnectorAndWhatAClusterLacksInAtMost60Mb() throws Exception {
        Path jar = JobJars.jobJar();
        long size = Files.size(jar);
        assertTrue(size <= MAX_BYTES, jar + " is " + size + " bytes");
        try (JarFile j = new JarFile(jar.toFile())) {
            assertEquals("io.streamtrain.train.TrainingApplication", j.getManifest().getMainAttributes().getValue("Main-Class"));
            for (String entry : List.of(
                    "io/streamtrain/train/TrainingApplication.class", "io/streamtrain/join/JoinJob.class",
                    "io/streamtrain/sql/TrainingTableFactory.class", "io/streamtrain/sql/PredictFunction.class",
                    "io/streamtrain/ps/ParameterServerOperator.class", "io/streamtrain/contract/RowCodec.class",
                    "org/apache/flink/connector/kafka/source/KafkaSource.class", "org/apache/kafka/clients/consumer/KafkaConsumer.class",
                    "org/apache/flink/formats/avro/AvroFormatFactory.class", "org/apache/avro/Schema.class",
                    "io/streamtrain/train/dense/TorchTower.class", "ai/djl/pytorch/engine/PtEngine.class", "ai/djl/ndarray/NDArray.class")) {
                assertTrue(j.getEntry(entry) != null, "the job jar lacks " + entry);
            }
            ZipEntry factories = j.getEntry("META-INF/services/org.apache.flink.table.factories.Factory");
            String services = new String(j.getInputStream(factories).readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(services.contains("io.streamtrain.sql.TrainingTableFactory"), services);
            assertTrue(services.contains("org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory"), services);
            List<String> foreign = j.stream().map(ZipEntry::getName)
                    .filter(n -> n.startsWith("org/apache/flink/runtime/") || n.startsWith("org/apache/flink/streaming/api/")
                            || n.startsWith("org/apache/flink/table/api/") || n.startsWith("org/apache/flink/state/rocksdb/")
                            || n.startsWith("org/rocksdb/") || (n.startsWith("kafka/") && n.endsWith(".class")) || n.startsWith("scala/")
                            || n.startsWith("pytorch/") || n.startsWith("native/lib/") || n.contains("libtorch") || n.startsWith("picocli/")
                            || n.startsWith("io/streamtrain/cli/") || n.startsWith("io/streamtrain/bench/")
                            || n.startsWith("io/streamtrain/djl/") || n.startsWith("io/streamtrain/serve/"))
                    .limit(10)
                    .toList();
            assertEquals(List.of(), foreign, "Flink's own modules, the broker, PyTorch's natives or the launcher in the job jar");
        }
    }
}
