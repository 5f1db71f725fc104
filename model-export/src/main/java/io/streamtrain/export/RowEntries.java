package io.streamtrain.export;

import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.ttl.TtlValue;

/**
 * Decodes one of the PS's map states ({@code rows}, {@code dense-rows}) from Flink's key-value
 * layout, the same in RocksDB and in a canonical savepoint: key = key-group prefix, Flink key,
 * namespace, then the row key (LongSerializer, 8 bytes, last); value = a null flag byte, then the
 * value through the state's own serializer as the checkpoint recorded it (a TTL state's
 * {@link TtlValue} wrapper included). One instance per reader thread: serializers are not
 * thread-safe.
 */
final class RowEntries {
    private final String state;
    private final TypeSerializer<?> values;
    private final DataInputDeserializer in = new DataInputDeserializer();

    private RowEntries(String state, TypeSerializer<?> values) {
        this.state = state;
        this.values = values;
    }

    /** The decoder of state {@code name} among a keyed backend's {@code states}, or null when the checkpoint has no such state. */
    static RowEntries of(List<StateMetaInfoSnapshot> states, String name) throws IOException {
        for (StateMetaInfoSnapshot s : states) {
            if (s.getName().equals(name)) {
                TypeSerializer<?> serializer = s.getTypeSerializerSnapshot(StateMetaInfoSnapshot.CommonSerializerKeys.VALUE_SERIALIZER)
                        .restoreSerializer();
                if (!(serializer instanceof MapSerializer<?, ?> map) || !(map.getKeySerializer() instanceof LongSerializer)) {
                    throw new IOException("state " + name + " is not the PS's map of long row keys (its serializer: " + serializer
                            + "): a checkpoint of another job or an incompatible build");
                }
                return new RowEntries(name, map.getValueSerializer());
            }
        }
        return null;
    }

    /** A copy for another thread. */
    RowEntries duplicate() {
        return new RowEntries(state, values.duplicate());
    }

    String state() {
        return state;
    }

    /** The row of one entry, or null for a null map value (which the PS never writes). */
    ExportedRow decode(byte[] key, byte[] value) throws IOException {
        long rowKey = rowKey(key);
        in.setBuffer(value);
        if (in.readBoolean()) {
            return null;
        }
        Object decoded = values.deserialize(in);
        EmbeddingRow row = (EmbeddingRow) (decoded instanceof TtlValue<?> ttl ? ttl.getUserValue() : decoded);
        return new ExportedRow(FeatureKey.field(rowKey), FeatureKey.id(rowKey), row.weights, row.count, row.updatedAt);
    }

    /** The row key: the last 8 bytes of the composite key, big-endian (LongSerializer). */
    static long rowKey(byte[] key) {
        long k = 0;
        for (int i = key.length - Long.BYTES; i < key.length; i++) {
            k = k << 8 | (key[i] & 0xFF);
        }
        return k;
    }
}
