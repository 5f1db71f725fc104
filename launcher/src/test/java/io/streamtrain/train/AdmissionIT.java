package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.TrainingRun;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --min-frequency N: a feature gets a row only from its N-th occurrence on, and then counts all of them. */
class AdmissionIT {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void featuresBelowTheMinimumFrequencyGetNoRow(@TempDir Path checkpoints) throws Exception {
        String topic = "admission-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        // feature id i of field 1 occurs i times (1..6); field 2 id 0 occurs in every example.
        AvroCodec<Example> codec = AvroCodec.of(Example.class);
        int examples = 0;
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (int id = 1; id <= 6; id++) {
                for (int n = 0; n < id; n++) {
                    Example e = Example.newBuilder().setId("a" + examples++).setEventTime(Instant.now()).setLabel(n % 2)
                            .setFeatures(List.of(new Feature(1, (long) id, 1f), new Feature(2, 0L, 1f))).build();
                    producer.send(new ProducerRecord<>(topic, codec.encode(e)));
                }
            }
        }
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, ModelKind.LR);
        conf.set(TrainingOptions.BATCH_SIZE, 2); // many batches, so occurrences arrive over many pushes
        conf.set(PsOptions.OPTIMIZER, OptimizerKind.COUNT);
        conf.set(PsOptions.MIN_FREQUENCY, 3);
        TrainingRun.run(new TrainingRun.Settings(conf, checkpoints, 1, Duration.ofMillis(500), Duration.ofSeconds(3), false, System.err));

        Map<Long, Long> counts = new HashMap<>();
        for (ExportedRow row : CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints))) {
            counts.put(FeatureKey.of(row.field(), row.id()), row.count());
        }
        Map<Long, Long> expected = new HashMap<>();
        for (int id = 3; id <= 6; id++) {
            expected.put(FeatureKey.of(1, id), (long) id);
        }
        expected.put(FeatureKey.of(2, 0), (long) examples);
        expected.put(FeatureKey.BIAS, (long) examples);
        assertEquals(expected, counts, "ids 1 and 2 stay pending; admitted rows count every occurrence, pending ones included");
    }
}
