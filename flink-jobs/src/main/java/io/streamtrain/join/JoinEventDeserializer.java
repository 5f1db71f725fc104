package io.streamtrain.join;

import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.Impression;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decodes impressions or clicks in the source, so watermarks are generated per Kafka partition
 * from event times. Undecodable records become {@link JoinEvent#UNREADABLE} events (reason
 * {@code not-avro}, or {@code invalid-event} for an empty impression id), never a failure.
 */
public class JoinEventDeserializer implements KafkaRecordDeserializationSchema<JoinEvent> {
    private static final long serialVersionUID = 1L;
    private final int kind;
    private transient AvroCodec<Impression> impressions;
    private transient AvroCodec<Click> clicks;

    private JoinEventDeserializer(int kind) {
        this.kind = kind;
    }

    public static JoinEventDeserializer impressions() {
        return new JoinEventDeserializer(JoinEvent.IMPRESSION);
    }

    public static JoinEventDeserializer clicks() {
        return new JoinEventDeserializer(JoinEvent.CLICK);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<JoinEvent> out) {
        out.collect(decode(r.topic(), r.partition(), r.offset(), r.value()));
    }

    JoinEvent decode(String topic, int partition, long offset, byte[] value) {
        String id;
        long time;
        try {
            if (value == null) {
                throw new java.io.IOException("null value");
            }
            if (kind == JoinEvent.IMPRESSION) {
                if (impressions == null) {
                    impressions = AvroCodec.of(Impression.class);
                }
                Impression i = impressions.decode(value);
                id = i.getImpressionId();
                time = i.getEventTime().toEpochMilli();
            } else {
                if (clicks == null) {
                    clicks = AvroCodec.of(Click.class);
                }
                Click c = clicks.decode(value);
                id = c.getImpressionId();
                time = c.getEventTime().toEpochMilli();
            }
        } catch (Exception e) { // Avro throws runtime exceptions on garbage too
            return JoinEvent.unreadable(topic, partition, offset, value, "not-avro",
                    "not an Avro " + (kind == JoinEvent.IMPRESSION ? "Impression" : "Click") + ": " + e);
        }
        if (id.isEmpty()) {
            return JoinEvent.unreadable(topic, partition, offset, value, "invalid-event", "empty impression_id");
        }
        return new JoinEvent(kind, id, time, topic, partition, offset, value);
    }

    @Override
    public TypeInformation<JoinEvent> getProducedType() {
        return TypeInformation.of(JoinEvent.class);
    }
}
