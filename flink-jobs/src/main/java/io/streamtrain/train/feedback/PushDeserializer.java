package io.streamtrain.train.feedback;

import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.message.PushCodec;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Reads pushes back from the feedback topic; only the training job writes there, so a bad record is a bug and fails loudly. */
public class PushDeserializer implements KafkaRecordDeserializationSchema<Push> {
    private static final long serialVersionUID = 1L;
    private final PushCodec codec = new PushCodec();

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Push> out) throws IOException {
        out.collect(codec.decode(record.value()));
    }

    @Override
    public TypeInformation<Push> getProducedType() {
        return TypeInformation.of(Push.class);
    }
}
