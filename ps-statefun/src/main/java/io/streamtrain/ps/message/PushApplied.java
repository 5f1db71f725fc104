package io.streamtrain.ps.message;

import java.nio.ByteBuffer;

/**
 * PS → batcher: {@code pushes} pushes of one batch (each one key group's gradients) have been
 * applied, or dropped as replays. Pure flow control: the batcher counts these to bound the
 * batches in flight, so a lost or repeated notice changes pacing, never the model.
 */
public class PushApplied {
    private static final int BYTES = Integer.BYTES * 2 + Long.BYTES;

    public int sourcePartition;
    public long batchSeq;
    public int pushes;

    public PushApplied() {}

    public PushApplied(int sourcePartition, long batchSeq, int pushes) {
        this.sourcePartition = sourcePartition;
        this.batchSeq = batchSeq;
        this.pushes = pushes;
    }

    /** 16 bytes, big-endian: source partition, batch sequence, pushes. */
    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putInt(sourcePartition).putLong(batchSeq).putInt(pushes).array();
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
