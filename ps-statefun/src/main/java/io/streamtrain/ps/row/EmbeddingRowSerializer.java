package io.streamtrain.ps.row;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The state serializer of {@link EmbeddingRow}, the PS's RocksDB value: every pull reads a row and
 * every push reads and writes one, and Flink's reflective POJO serializer was a fifth of the PS
 * thread (docs/benchmarks.md). Layout: weights and slots as (length, big-endian floats), then
 * count, version and updatedAt. State written by the POJO serializer (earlier builds) is migrated on
 * restore: Flink reads it with the old serializer and rewrites it with this one.
 */
public final class EmbeddingRowSerializer extends TypeSerializerSingleton<EmbeddingRow> {
    private static final long serialVersionUID = 1L;
    public static final EmbeddingRowSerializer INSTANCE = new EmbeddingRowSerializer();

    private EmbeddingRowSerializer() {}

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public EmbeddingRow createInstance() {
        return new EmbeddingRow(new float[0], new float[0]);
    }

    @Override
    public EmbeddingRow copy(EmbeddingRow from) {
        EmbeddingRow copy = new EmbeddingRow(from.weights.clone(), from.slots.clone());
        copy.count = from.count;
        copy.version = from.version;
        copy.updatedAt = from.updatedAt;
        return copy;
    }

    @Override
    public EmbeddingRow copy(EmbeddingRow from, EmbeddingRow reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(EmbeddingRow row, DataOutputView target) throws IOException {
        writeFloats(row.weights, target);
        writeFloats(row.slots, target);
        target.writeLong(row.count);
        target.writeLong(row.version);
        target.writeLong(row.updatedAt);
    }

    @Override
    public EmbeddingRow deserialize(DataInputView source) throws IOException {
        EmbeddingRow row = new EmbeddingRow(readFloats(source), readFloats(source));
        row.count = source.readLong();
        row.version = source.readLong();
        row.updatedAt = source.readLong();
        return row;
    }

    @Override
    public EmbeddingRow deserialize(EmbeddingRow reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    /** One bulk copy per array instead of a call per float. */
    private static void writeFloats(float[] values, DataOutputView target) throws IOException {
        byte[] bytes = new byte[values.length * Float.BYTES];
        ByteBuffer.wrap(bytes).asFloatBuffer().put(values);
        target.writeInt(values.length);
        target.write(bytes);
    }

    private static float[] readFloats(DataInputView source) throws IOException {
        int length = source.readInt();
        if (length < 0) {
            throw new IOException("corrupt embedding row: array length " + length);
        }
        byte[] bytes = new byte[length * Float.BYTES];
        source.readFully(bytes);
        float[] values = new float[length];
        ByteBuffer.wrap(bytes).asFloatBuffer().get(values);
        return values;
    }

    @Override
    public TypeSerializerSnapshot<EmbeddingRow> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Stateless, so the snapshot holds nothing; it accepts the POJO serializer's state by migration. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<EmbeddingRow> {
        public Snapshot() {
            super(() -> INSTANCE);
        }

        @Override
        public TypeSerializerSchemaCompatibility<EmbeddingRow> resolveSchemaCompatibility(
                TypeSerializerSnapshot<EmbeddingRow> oldSnapshot) {
            if (oldSnapshot instanceof PojoSerializerSnapshot) {
                return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
            }
            return super.resolveSchemaCompatibility(oldSnapshot);
        }
    }
}
