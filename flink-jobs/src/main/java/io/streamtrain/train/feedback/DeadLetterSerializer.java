package io.streamtrain.train.feedback;

import io.streamtrain.ingest.DeadLetters;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.train.batch.Rejected;
import java.time.Instant;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Rejected records to the dead-letter topic as Avro {@code DeadLetter}. */
public class DeadLetterSerializer implements KafkaRecordSerializationSchema<Rejected> {
    private static final long serialVersionUID = 1L;
    private final String topic;
    private transient AvroCodec<DeadLetter> codec;

    public DeadLetterSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(Rejected r, KafkaSinkContext context, Long timestamp) {
        if (codec == null) {
            codec = AvroCodec.of(DeadLetter.class);
        }
        DeadLetter letter = DeadLetters.of(r.source, r.location, r.reason, r.detail, r.payload, Instant.ofEpochMilli(r.time));
        return new ProducerRecord<>(topic, codec.encode(letter));
    }
}
