package io.streamtrain.train.feedback;

import io.streamtrain.contract.RowCodec;
import io.streamtrain.contract.RowVersion;
import io.streamtrain.ps.message.RowChanged;
import java.util.List;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Writes changed rows to the model-updates topic in the serving bundle's own layout
 * ({@link RowCodec}), so a follower puts key and value into its store as they are. Versioned
 * updates carry their row's version ({@link RowVersion}), by which a follower drops what a
 * recovery publishes again; checkpoint-bound ones carry none (read in commit order, they need none).
 */
public class ModelUpdateSerializer implements KafkaRecordSerializationSchema<RowChanged> {
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final boolean versioned;

    public ModelUpdateSerializer(String topic, boolean versioned) {
        this.topic = topic;
        this.versioned = versioned;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(RowChanged row, KafkaSinkContext context, Long timestamp) {
        List<Header> headers = versioned ? List.of(RowVersion.header(row.version)) : List.of();
        return new ProducerRecord<>(topic, null, row.appliedAt, RowCodec.key(row.key), RowCodec.value(row.weights), headers);
    }
}
