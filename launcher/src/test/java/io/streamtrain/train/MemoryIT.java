package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.export.CheckpointRows;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.testing.KafkaFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding table lives in RocksDB, not on the heap: `streamtrain train` builds a table of two
 * million FM rows (dim 16 plus Adagrad slots: ~270 MB of floats alone, several times that as heap
 * objects) in a child JVM whose heap is capped at 400 MB.
 */
@Tag("alone") // measures learning or timing that a second test JVM on two cores would disturb
class MemoryIT {
    private static final int EXAMPLES = 200_000;
    private static final int FEATURES = 10;
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void twoMillionRowsTrainInAFourHundredMegabyteHeap(@TempDir Path dir) throws Exception {
        String topic = "memory-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        AvroCodec<Example> codec = AvroCodec.of(Example.class);
        SplittableRandom random = new SplittableRandom(3);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (int i = 0; i < EXAMPLES; i++) {
                List<Feature> features = new ArrayList<>(FEATURES);
                for (int f = 0; f < FEATURES; f++) {
                    features.add(new Feature(f, random.nextLong(1L << 40), 1f)); // all but unique ids: one new row each
                }
                producer.send(new ProducerRecord<>(topic, codec.encode(Example.newBuilder().setId("m" + i)
                        .setEventTime(Instant.now()).setLabel(random.nextBoolean() ? 1f : 0f).setFeatures(features).build())));
            }
        }
        Path checkpoints = dir.resolve("checkpoints");
        Path log = dir.resolve("train.log");
        Process train = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx400m",
                        "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
                        "-cp", System.getProperty("java.class.path"),
                        "io.streamtrain.cli.StreamtrainCli", "train",
                        "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                        "--model", "fm", "--dim", "16", "--parallelism", "1", "--batch-size", "1024",
                        "--checkpoint-dir", checkpoints.toString(), "--checkpoint-interval", "2s", "--until-idle", "8s")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        boolean done = train.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            train.destroyForcibly();
        }
        String output = Files.readString(log);
        assertTrue(done, "train finished in time:\n" + tail(output));
        assertEquals(0, train.exitValue(), "train exited cleanly with a 400 MB heap:\n" + tail(output));
        assertTrue(output.contains("summary: records=" + EXAMPLES), tail(output));

        long[] rows = {0};
        CheckpointRows.read(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints), r -> rows[0]++);
        assertTrue(rows[0] >= (long) EXAMPLES * FEATURES, "the table holds every row: " + rows[0]);
    }

    private static String tail(String s) {
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }
}
