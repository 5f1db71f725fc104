package io.streamtrain.join;

import io.streamtrain.ingest.format.RecordDecoder;
import io.streamtrain.ingest.format.RejectReason;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.MappingException;
import io.streamtrain.schema.AvroCodec;
import java.util.List;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.Impression;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decodes impressions or clicks in the source, so watermarks are generated per Kafka partition
 * from event times: the project's Avro Impression and Click records, or records in the user's own
 * format ({@link RecordDecoder}), whose mapping's id column is the impression id and whose time
 * column (else the record's timestamp) is the event time. Undecodable records become
 * {@link JoinEvent#UNREADABLE} events (reason {@code not-avro}, the user format's reason, e.g.
 * {@code missing-field}, or {@code invalid-event} for an empty impression id), never a failure.
 */
public class JoinEventDeserializer implements KafkaRecordDeserializationSchema<JoinEvent> {
    private static final long serialVersionUID = 1L;
    private final int kind;
    private final RecordDecoder userFormat;
    private transient AvroCodec<Impression> impressions;
    private transient AvroCodec<Click> clicks;

    private JoinEventDeserializer(int kind, RecordDecoder userFormat) {
        this.kind = kind;
        this.userFormat = userFormat;
    }

    public static JoinEventDeserializer impressions() {
        return impressions(null);
    }

    public static JoinEventDeserializer clicks() {
        return clicks(null);
    }

    /** @param userFormat the impressions' format; null for Avro Impression records */
    public static JoinEventDeserializer impressions(RecordDecoder userFormat) {
        return new JoinEventDeserializer(JoinEvent.IMPRESSION, userFormat);
    }

    /** @param userFormat the clicks' format; null for Avro Click records */
    public static JoinEventDeserializer clicks(RecordDecoder userFormat) {
        return new JoinEventDeserializer(JoinEvent.CLICK, userFormat);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<JoinEvent> out) {
        out.collect(userFormat == null ? decode(r.topic(), r.partition(), r.offset(), r.value())
                : decodeUserFormat(r.topic(), r.partition(), r.offset(), r.timestamp(), r.value()));
    }

    /** An impression needs every column its mapping reads, a click only the id. */
    JoinEvent decodeUserFormat(String topic, int partition, long offset, long timestamp, byte[] value) {
        RecordDecoder.Read read = userFormat.read(value);
        if (!read.ok()) {
            return JoinEvent.unreadable(topic, partition, offset, value, read.reason().code(), read.detail());
        }
        FeatureMapping mapping = userFormat.mapping();
        String missing = read.firstMissing(kind == JoinEvent.IMPRESSION ? mapping.columns() : List.of(mapping.idColumn()));
        if (missing != null) {
            return JoinEvent.unreadable(topic, partition, offset, value, RejectReason.MISSING_FIELD.code(),
                    "no \"" + missing + "\" in the " + (kind == JoinEvent.IMPRESSION ? "impression" : "click") + " (the mapping reads it)");
        }
        String id = mapping.id(read.raw());
        if (id == null) {
            return JoinEvent.unreadable(topic, partition, offset, value, "invalid-event", "empty impression id " + mapping.idColumn());
        }
        try {
            return new JoinEvent(kind, id, mapping.time(read.raw(), timestamp), topic, partition, offset, value);
        } catch (MappingException e) {
            return JoinEvent.unreadable(topic, partition, offset, value, e.reason().code(), e.getMessage());
        }
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
