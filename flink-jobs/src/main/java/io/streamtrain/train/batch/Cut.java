package io.streamtrain.train.batch;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * An idle cut as the cut log records it: batch {@code seq} of source partition {@code partition}
 * ended with the record at {@code lastOffset}. The first offset and size let a reader check it
 * against what it rebuilds.
 */
record Cut(int partition, long seq, long firstOffset, long lastOffset, int size) {
    private static final byte VERSION = 1;
    private static final int BYTES = 1 + 4 + 8 + 8 + 8 + 4;
    /** A reader's fence ({@link CutReader}): no cut, only a place in the log. */
    private static final byte[] FENCE = {0};

    static byte[] fence() {
        return FENCE.clone();
    }

    static boolean isFence(byte[] bytes) {
        return bytes != null && bytes.length == 1 && bytes[0] == FENCE[0];
    }

    byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).put(VERSION).putInt(partition).putLong(seq).putLong(firstOffset)
                .putLong(lastOffset).putInt(size).array();
    }

    static Cut fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES || bytes[0] != VERSION) {
            throw new IllegalArgumentException("not a cut record of version " + VERSION + " ("
                    + (bytes == null ? "null" : bytes.length + " bytes") + "): is another program writing to the cuts topic?");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 1, BYTES - 1);
        return new Cut(in.getInt(), in.getLong(), in.getLong(), in.getLong(), in.getInt());
    }

    static Cut of(int partition, long seq, List<BatchRecord> records) {
        return new Cut(partition, seq, records.get(0).offset, records.get(records.size() - 1).offset, records.size());
    }
}
