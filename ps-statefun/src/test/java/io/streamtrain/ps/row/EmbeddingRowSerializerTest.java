package io.streamtrain.ps.row;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class EmbeddingRowSerializerTest {
    private final EmbeddingRowSerializer serializer = EmbeddingRowSerializer.INSTANCE;

    @Test
    void aRowRoundTripsWithEveryField() throws IOException {
        EmbeddingRow row = row();
        EmbeddingRow back = serializer.deserialize(new DataInputDeserializer(bytes(row)));
        assertArrayEquals(row.weights, back.weights);
        assertArrayEquals(row.slots, back.slots);
        assertEquals(row.count, back.count);
        assertEquals(row.version, back.version);
        assertEquals(row.updatedAt, back.updatedAt);
    }

    @Test
    void copyingSerializedBytesGivesTheSameBytes() throws IOException {
        byte[] original = bytes(row());
        DataOutputSerializer out = new DataOutputSerializer(16);
        serializer.copy(new DataInputDeserializer(original), out);
        assertArrayEquals(original, out.getCopyOfBuffer());
    }

    @Test
    void anInstanceCopyIsDeep() {
        EmbeddingRow row = row();
        EmbeddingRow copy = serializer.copy(row);
        copy.weights[0] = 99f;
        assertEquals(0.5f, row.weights[0]);
        assertEquals(row.count, copy.count);
    }

    @Test
    void aCorruptLengthIsAClearError() {
        DataOutputSerializer out = new DataOutputSerializer(16);
        assertThrows(IOException.class, () -> {
            out.writeInt(-3);
            serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        });
    }

    @Test
    void stateOfThePojoSerializerIsMigratedAndOurOwnIsReadAsIs() {
        TypeSerializerSnapshot<EmbeddingRow> pojo = TypeInformation.of(EmbeddingRow.class)
                .createSerializer(new SerializerConfigImpl()).snapshotConfiguration();
        assertTrue(serializer.snapshotConfiguration().resolveSchemaCompatibility(pojo).isCompatibleAfterMigration());
        assertTrue(serializer.snapshotConfiguration().resolveSchemaCompatibility(serializer.snapshotConfiguration()).isCompatibleAsIs());
    }

    private static EmbeddingRow row() {
        EmbeddingRow row = new EmbeddingRow(new float[] {0.5f, -1.25f, Float.MIN_VALUE}, new float[] {3f, 4f, 1e-9f});
        row.count = 7;
        row.version = 1L << 33;
        row.updatedAt = 1_733_000_000_123L;
        return row;
    }

    private byte[] bytes(EmbeddingRow row) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        serializer.serialize(row, out);
        return out.getCopyOfBuffer();
    }
}
