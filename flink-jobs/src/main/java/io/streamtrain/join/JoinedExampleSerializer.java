package io.streamtrain.join;

import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Examples keyed by impression id. The record timestamp is left to the producer (wall clock when
 * written), not the impression's event time: it rises with the stream, which the trainer's
 * time-based batch cuts rely on, and a replay of old events is not deleted at once by time-based
 * retention (found by JoinIT: records stamped with 2023 event times vanished from the topic).
 */
public class JoinedExampleSerializer implements KafkaRecordSerializationSchema<JoinedExample> {
    private static final long serialVersionUID = 1L;
    private final String topic;

    public JoinedExampleSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(JoinedExample e, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(topic, null, null, e.impressionId.getBytes(StandardCharsets.UTF_8), e.value);
    }
}
