package io.streamtrain.ingest;

import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Sends {@link DeadLetter}s (Avro, no key) through a producer it does not own. Kept apart from
 * {@link DeadLetters} so that class stays free of Kafka clients. Not thread-safe (one Avro codec).
 */
public final class DeadLetterWriter {
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final AvroCodec<DeadLetter> codec = AvroCodec.of(DeadLetter.class);

    public DeadLetterWriter(Producer<byte[], byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    public String topic() {
        return topic;
    }

    /** Encodes and sends asynchronously; returns the encoded size in bytes. */
    public int write(DeadLetter deadLetter, Callback callback) {
        byte[] value = codec.encode(deadLetter);
        producer.send(new ProducerRecord<>(topic, null, value), callback);
        return value.length;
    }
}
