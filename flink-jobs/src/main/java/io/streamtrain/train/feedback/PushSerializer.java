package io.streamtrain.train.feedback;

import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.message.PushCodec;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes a push to the feedback partition of its PS key group, so all pushes of a key group are
 * read back in the order the worker wrote them: the PS's duplicate check relies on that.
 */
public class PushSerializer implements KafkaRecordSerializationSchema<Push> {
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int partitions;
    private final PushCodec codec = new PushCodec();

    public PushSerializer(String topic, int partitions) {
        this.topic = topic;
        this.partitions = partitions;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(Push push, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(topic, push.keyGroup % partitions, null, codec.encode(push));
    }
}
