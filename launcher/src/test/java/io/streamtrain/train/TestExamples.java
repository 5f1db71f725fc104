package io.streamtrain.train;

import io.streamtrain.testing.KafkaFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.export.ExportedRow;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import java.util.concurrent.Future;

/** Writes random examples to a topic and keeps the true per-row occurrence counts: the oracle's truth. */
public final class TestExamples {
    final Map<Long, Long> trueCounts = new HashMap<>();
    long good;
    private final Random random;
    private final AvroCodec<Example> codec = AvroCodec.of(Example.class);

    public TestExamples(long seed) {
        this.random = new Random(seed);
    }

    Example next() {
        int n = 1 + random.nextInt(6);
        List<Feature> features = new ArrayList<>();
        Set<Long> distinct = new LinkedHashSet<>();
        for (int i = 0; i < n; i++) {
            int field = random.nextInt(4);
            long id = (long) Math.floor(Math.pow(random.nextDouble(), 3) * 300); // skewed: hot ids
            features.add(new Feature(field, id, 1f));
            distinct.add(FeatureKey.of(field, id));
        }
        distinct.forEach(k -> trueCounts.merge(k, 1L, Long::sum));
        good++;
        return Example.newBuilder()
                .setId("e" + good)
                .setEventTime(Instant.ofEpochMilli(System.currentTimeMillis()))
                .setLabel(random.nextBoolean() ? 1f : 0f)
                .setFeatures(features)
                .build();
    }

    /**
     * The oracle (count optimizer): the bias row saw every good record once, and every other row's
     * count equals the number of records containing its feature, no more and no less.
     */
    public void assertCountedExactlyOnce(List<ExportedRow> rows) {
        assertCountedExactlyOnce(rows, good, trueCounts, 0);
    }

    /** The oracle of a deep model with {@code denseChunks} dense chunk rows: each of their parameters saw every good record once too. */
    void assertCountedExactlyOnce(List<ExportedRow> rows, int denseChunks) {
        assertCountedExactlyOnce(rows, good, trueCounts, denseChunks);
    }

    /** The same oracle against a snapshot of the truth ({@link #good}, {@link #trueCounts}) taken earlier. */
    public static void assertCountedExactlyOnce(List<ExportedRow> rows, long good, Map<Long, Long> trueCounts) {
        assertCountedExactlyOnce(rows, good, trueCounts, 0);
    }

    private static void assertCountedExactlyOnce(List<ExportedRow> rows, long good, Map<Long, Long> trueCounts, int denseChunks) {
        Map<Long, Long> exported = new HashMap<>();
        Set<Long> chunks = new LinkedHashSet<>();
        long biasCount = -1;
        for (ExportedRow row : rows) {
            long key = FeatureKey.of(row.field(), row.id());
            if (FeatureKey.isDense(key)) {
                chunks.add(row.id());
                assertEquals(good, row.count(), "dense chunk " + row.id() + " saw every good record once");
                for (int i = 0; i < row.vector().length; i++) {
                    assertEquals(good, (long) row.vector()[i], "dense chunk " + row.id() + ", parameter " + i + " counts every good record once");
                }
                continue;
            }
            if (key == FeatureKey.BIAS) {
                biasCount = row.count();
            } else {
                exported.put(key, row.count());
            }
            assertEquals(row.count(), (long) row.vector()[0], "count optimizer's weight 0 equals the row count");
        }
        assertEquals(good, biasCount, "the bias row saw every good record once");
        assertEquals(trueCounts, exported, "every row counted every record containing it exactly once");
        assertEquals(denseChunks, chunks.size(), "dense chunk rows in the model: " + chunks);
    }

    /** The job reaches the fixture's broker: its bootstrap servers and, for a secured one, its client properties. */
    public static Configuration connect(Configuration conf, KafkaFixture kafka) {
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        if (!kafka.clientProperties().isEmpty()) {
            conf.set(TrainingOptions.KAFKA_PROPERTIES, kafka.clientProperties());
        }
        return conf;
    }

    /** The count oracle on an FM of dim 4 over {@code topic}, 64-example batches, reaching the fixture's broker. */
    static Configuration fmOracleJob(KafkaFixture kafka, String topic) {
        return countOracle(connect(new Configuration(), kafka), topic, ModelKind.FM, 4);
    }

    static Configuration oracleJob(String bootstrap, String topic) {
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, bootstrap);
        return countOracle(conf, topic, ModelKind.LR, 1);
    }

    private static Configuration countOracle(Configuration conf, String topic, ModelKind model, int dim) {
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, model);
        conf.set(TrainingOptions.BATCH_SIZE, 64);
        conf.set(TrainingOptions.MAX_WAIT, Duration.ofMillis(200));
        conf.set(PsOptions.DIM, dim);
        conf.set(PsOptions.OPTIMIZER, OptimizerKind.COUNT);
        return conf;
    }

    /** Sends {@code count} examples and fails unless the broker acknowledged every one: the truth must be what Kafka holds. */
    public void produce(KafkaProducer<byte[], byte[]> producer, String topic, int count) {
        produce(producer, topic, count, null);
    }

    /** The same, each record with record time {@code timestamp} (null: the producer's clock). */
    public void produce(KafkaProducer<byte[], byte[]> producer, String topic, int count, Long timestamp) {
        List<Future<RecordMetadata>> sent = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, null, timestamp, null, codec.encode(next()))));
        }
        producer.flush();
        try {
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("test input was not written completely", e);
        }
    }
}
