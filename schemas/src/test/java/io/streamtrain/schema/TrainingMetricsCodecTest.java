package io.streamtrain.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class TrainingMetricsCodecTest {
    private final TrainingMetricsCodec codec = new TrainingMetricsCodec();

    @Test
    void roundTripsTheCurrentVersion() throws Exception {
        TrainingMetrics m = TrainingMetrics.newBuilder()
                .setTime(Instant.ofEpochMilli(1_700_000_000_000L)).setSubtask(1).setAttempt(2).setExamples(300)
                .setWindowExamples(200).setWindowAuc(0.7).setWindowLogloss(0.5).setOperator("ps").setParallelism(3)
                .setRestoredCheckpoint(7).setCompletedCheckpoint(9).setStalenessP50Ms(12.0).setStalenessP99Ms(80.0)
                .build();
        assertEquals(m, codec.decode(codec.encode(m)));
    }

    @Test
    void readsRecordsOfTheFirstVersionWithDefaults() throws Exception {
        Schema v1 = TrainingMetricsCodec.v1Schema();
        GenericRecord old = new GenericData.Record(v1);
        old.put("time", 1_700_000_000_000L);
        old.put("subtask", 0);
        old.put("attempt", 1);
        old.put("examples", 5000L);
        old.put("window_examples", 4000L);
        old.put("window_auc", 0.75);
        old.put("window_logloss", 0.45);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().directBinaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(v1).write(old, enc);
        enc.flush();

        TrainingMetrics m = codec.decode(out.toByteArray());
        assertEquals(5000L, m.getExamples());
        assertEquals(0.75, m.getWindowAuc());
        assertEquals("worker", m.getOperator());
        assertEquals(0, m.getParallelism());
        assertEquals(-1L, m.getRestoredCheckpoint());
        assertEquals(-1L, m.getCompletedCheckpoint());
        assertNull(m.getStalenessP99Ms());
    }

    @Test
    void rejectsGarbage() {
        assertThrows(Exception.class, () -> codec.decode("not a metrics record".getBytes(StandardCharsets.UTF_8)));
    }
}
