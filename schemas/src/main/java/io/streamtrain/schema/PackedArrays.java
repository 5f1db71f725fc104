package io.streamtrain.schema;

import java.nio.ByteBuffer;

/** Primitive arrays packed into Avro {@code bytes} fields (big-endian), so hot records never box. */
public final class PackedArrays {
    private PackedArrays() {}

    public static ByteBuffer packLongs(long[] a) {
        ByteBuffer b = ByteBuffer.allocate(a.length * Long.BYTES);
        b.asLongBuffer().put(a);
        return b;
    }

    public static ByteBuffer packInts(int[] a) {
        ByteBuffer b = ByteBuffer.allocate(a.length * Integer.BYTES);
        b.asIntBuffer().put(a);
        return b;
    }

    public static ByteBuffer packFloats(float[] a) {
        ByteBuffer b = ByteBuffer.allocate(a.length * Float.BYTES);
        b.asFloatBuffer().put(a);
        return b;
    }

    public static long[] unpackLongs(ByteBuffer b) {
        long[] a = new long[b.remaining() / Long.BYTES];
        b.duplicate().asLongBuffer().get(a);
        return a;
    }

    public static int[] unpackInts(ByteBuffer b) {
        int[] a = new int[b.remaining() / Integer.BYTES];
        b.duplicate().asIntBuffer().get(a);
        return a;
    }

    public static float[] unpackFloats(ByteBuffer b) {
        float[] a = new float[b.remaining() / Float.BYTES];
        b.duplicate().asFloatBuffer().get(a);
        return a;
    }
}
