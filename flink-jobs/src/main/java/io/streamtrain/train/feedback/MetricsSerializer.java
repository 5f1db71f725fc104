package io.streamtrain.train.feedback;

import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.train.worker.WindowReport;
import java.time.Instant;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Window reports to the metrics topic as Avro {@code TrainingMetrics}. */
public class MetricsSerializer implements KafkaRecordSerializationSchema<WindowReport> {
    private static final long serialVersionUID = 1L;
    private final String topic;
    private transient AvroCodec<TrainingMetrics> codec;

    public MetricsSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(WindowReport w, KafkaSinkContext context, Long timestamp) {
        if (codec == null) {
            codec = AvroCodec.of(TrainingMetrics.class);
        }
        return new ProducerRecord<>(topic, codec.encode(TrainingMetrics.newBuilder()
                .setTime(Instant.ofEpochMilli(w.time))
                .setSubtask(w.subtask)
                .setAttempt(w.attempt)
                .setExamples(w.examples)
                .setWindowExamples(w.windowExamples)
                .setWindowAuc(w.windowAuc)
                .setWindowLogloss(w.windowLogloss)
                .build()));
    }
}
