package io.streamtrain.train.batch;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Keeps the raw bytes with their partition and offset: the batch id is built from them. */
public class SourceRecordDeserializer implements KafkaRecordDeserializationSchema<SourceRecord> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<SourceRecord> out) {
        out.collect(new SourceRecord(record.topic(), record.partition(), record.offset(), record.timestamp(), record.value()));
    }

    @Override
    public TypeInformation<SourceRecord> getProducedType() {
        return TypeInformation.of(SourceRecord.class);
    }
}
