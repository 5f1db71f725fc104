package io.streamtrain.train.feedback;

import io.streamtrain.ps.message.PushApplied;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes the PS's push-applied notices (flow control for the batcher) to the applied topic. */
public class AppliedSerializer implements KafkaRecordSerializationSchema<PushApplied> {
    private static final long serialVersionUID = 1L;

    private final String topic;

    public AppliedSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(PushApplied applied, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(topic, null, null, applied.toBytes());
    }
}
