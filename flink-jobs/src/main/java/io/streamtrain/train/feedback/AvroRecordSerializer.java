package io.streamtrain.train.feedback;

import io.streamtrain.schema.AvroCodec;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Any generated Avro record to a topic, partitioned by the producer (dead letters, metrics). */
public class AvroRecordSerializer<T extends SpecificRecord> implements KafkaRecordSerializationSchema<T> {
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final Class<T> type;
    private transient AvroCodec<T> codec;

    public AvroRecordSerializer(String topic, Class<T> type) {
        this.topic = topic;
        this.type = type;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(T element, KafkaSinkContext context, Long timestamp) {
        if (codec == null) {
            codec = AvroCodec.of(type);
        }
        return new ProducerRecord<>(topic, codec.encode(element));
    }
}
