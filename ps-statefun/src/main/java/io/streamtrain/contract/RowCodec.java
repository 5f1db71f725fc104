package io.streamtrain.contract;

import io.streamtrain.ingest.format.FeatureHashing;
import io.streamtrain.schema.FeatureKey;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The bundle's binary row layout, the one place that knows it (documented in docs/ARCHITECTURE.md):
 * <pre>
 * key    = 8 bytes big-endian: field (2 bytes) then feature id (6 bytes), i.e. {@link FeatureKey} packed;
 *          RocksDB's bytewise order is then (field, id) order
 * value  = the row's weights, width × float32 little-endian: linear weight, then the k embedding
 *          entries. No optimizer slots, counts or timestamps: serving needs none of them.
 * digest = fmix64(rowKey × 0x9E3779B97F4A7C15 XOR crc32c(value))
 * checksum of a bundle = Σ digest over every row and the bias (mod 2^64), so it does not depend on order
 * </pre>
 */
public final class RowCodec {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private RowCodec() {}

    public static byte[] key(long rowKey) {
        return ByteBuffer.allocate(Long.BYTES).putLong(rowKey).array();
    }

    public static long rowKey(byte[] key) {
        if (key.length != Long.BYTES) {
            throw new IllegalArgumentException("a bundle key is 8 bytes, got " + key.length);
        }
        return ByteBuffer.wrap(key).getLong();
    }

    public static byte[] value(float[] weights) {
        ByteBuffer b = ByteBuffer.allocate(weights.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(weights);
        return b.array();
    }

    public static float[] weights(byte[] value, int width) {
        if (value.length != width * Float.BYTES) {
            throw new IllegalArgumentException("a row of width " + width + " is " + width * Float.BYTES + " bytes, got " + value.length);
        }
        float[] w = new float[width];
        ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(w);
        return w;
    }

    public static long digest(long rowKey, byte[] value) {
        CRC32C crc = new CRC32C();
        crc.update(value);
        return FeatureHashing.fmix64(rowKey * GOLDEN ^ crc.getValue());
    }
}
