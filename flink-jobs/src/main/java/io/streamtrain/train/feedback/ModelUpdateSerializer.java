package io.streamtrain.train.feedback;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.ps.message.RowChanged;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes changed rows to the model-updates topic in the serving bundle's own layout
 * ({@link RowCodec}), so a follower puts key and value into its store as they are.
 */
public class ModelUpdateSerializer implements KafkaRecordSerializationSchema<RowChanged> {
    private static final long serialVersionUID = 1L;

    private final String topic;

    public ModelUpdateSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(RowChanged row, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(topic, null, row.appliedAt, RowCodec.key(row.key), RowCodec.value(row.weights));
    }
}
