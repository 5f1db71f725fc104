package io.streamtrain.train.feedback;

import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.schema.TrainingMetricsCodec;
import io.streamtrain.train.worker.WindowReport;
import java.time.Instant;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Worker and PS reports to the metrics topic as Avro {@code TrainingMetrics}. */
public class MetricsSerializer implements KafkaRecordSerializationSchema<WindowReport> {
    private static final long serialVersionUID = 1L;
    private final String topic;
    private transient TrainingMetricsCodec codec;

    public MetricsSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(WindowReport w, KafkaSinkContext context, Long timestamp) {
        if (codec == null) {
            codec = new TrainingMetricsCodec();
        }
        return new ProducerRecord<>(topic, codec.encode(TrainingMetrics.newBuilder()
                .setTime(Instant.ofEpochMilli(w.time))
                .setSubtask(w.subtask)
                .setAttempt(w.attempt)
                .setExamples(w.examples)
                .setWindowExamples(w.windowExamples)
                .setWindowAuc(w.windowAuc)
                .setWindowLogloss(w.windowLogloss)
                .setOperator(w.operator)
                .setParallelism(w.parallelism)
                .setRestoredCheckpoint(w.restoredCheckpoint)
                .setCompletedCheckpoint(w.completedCheckpoint)
                .setStalenessP50Ms(Double.isNaN(w.stalenessP50Ms) ? null : w.stalenessP50Ms)
                .setStalenessP99Ms(Double.isNaN(w.stalenessP99Ms) ? null : w.stalenessP99Ms)
                .setLag(w.lag)
                .setWindowPositives(w.windowPositives)
                .build()));
    }
}
