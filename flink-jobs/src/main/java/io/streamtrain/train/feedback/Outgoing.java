package io.streamtrain.train.feedback;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A Kafka record already serialized for its topic (a POJO, so Flink moves it without Kryo): lets
 * records for several topics share one sink, which a table sink needs (the planner keeps only the
 * one sink it is given).
 */
public class Outgoing {
    public String topic;
    public Integer partition;
    public Long timestamp;
    public byte[] key;
    public byte[] value;

    public Outgoing() {}

    public Outgoing(ProducerRecord<byte[], byte[]> record) {
        this.topic = record.topic();
        this.partition = record.partition();
        this.timestamp = record.timestamp();
        this.key = record.key();
        this.value = record.value();
    }

    public ProducerRecord<byte[], byte[]> toProducerRecord() {
        return new ProducerRecord<>(topic, partition, timestamp, key, value);
    }

    /** The stream's elements serialized by {@code serializer}, which must not need a sink context. */
    public static <T> DataStream<Outgoing> of(DataStream<T> stream, KafkaRecordSerializationSchema<T> serializer, String name) {
        return stream.map(element -> new Outgoing(serializer.serialize(element, null, null)))
                .returns(Outgoing.class)
                .name(name);
    }

    /** Writes each record to its own topic: one sink for records of any topic. */
    public static KafkaRecordSerializationSchema<Outgoing> serializer() {
        return (record, context, timestamp) -> record.toProducerRecord();
    }
}
