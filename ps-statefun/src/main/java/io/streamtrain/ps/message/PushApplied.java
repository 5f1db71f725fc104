package io.streamtrain.ps.message;

import java.nio.ByteBuffer;

/**
 * PS → batcher: one push (one batch's gradients for one key group) has been applied, or dropped
 * as a replay. Pure flow control: the batcher counts these to bound the batches in flight, so a
 * lost or repeated notice changes pacing, never the model.
 */
public class PushApplied {
    private static final int BYTES = Integer.BYTES * 2 + Long.BYTES;

    public int sourcePartition;
    public long batchSeq;
    public int keyGroup;

    public PushApplied() {}

    public PushApplied(int sourcePartition, long batchSeq, int keyGroup) {
        this.sourcePartition = sourcePartition;
        this.batchSeq = batchSeq;
        this.keyGroup = keyGroup;
    }

    /** 16 bytes, big-endian: source partition, batch sequence, key group. */
    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putInt(sourcePartition).putLong(batchSeq).putInt(keyGroup).array();
    }

    /** The notice in {@code bytes}, or null if they are not one (a foreign record on the topic). */
    public static PushApplied fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new PushApplied(b.getInt(), b.getLong(), b.getInt());
    }
}
