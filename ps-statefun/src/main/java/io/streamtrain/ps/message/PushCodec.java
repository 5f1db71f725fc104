package io.streamtrain.ps.message;

import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.GradientPush;
import io.streamtrain.schema.PackedArrays;
import java.io.IOException;
import java.io.Serializable;

/** {@link Push} ⇄ the feedback topic's Avro {@code GradientPush} bytes. One per task. */
public final class PushCodec implements Serializable {
    private static final long serialVersionUID = 1L;
    private transient AvroCodec<GradientPush> codec;

    private AvroCodec<GradientPush> codec() {
        if (codec == null) {
            codec = AvroCodec.of(GradientPush.class);
        }
        return codec;
    }

    public byte[] encode(Push p) {
        return codec().encode(GradientPush.newBuilder()
                .setKeyGroup(p.keyGroup)
                .setSourcePartition(p.sourcePartition)
                .setBatchSeq(p.batchSeq)
                .setFirstOffset(p.firstOffset)
                .setPulledAt(p.pulledAt)
                .setCutAt(p.cutAt)
                .setSentAt(p.sentAt)
                .setKeys(PackedArrays.packLongs(p.keys))
                .setOccurrences(PackedArrays.packInts(p.occurrences))
                .setRowVersions(PackedArrays.packLongs(p.versions))
                .setGradients(PackedArrays.packFloats(p.gradients))
                .build());
    }

    public Push decode(byte[] bytes) throws IOException {
        GradientPush g = codec().decode(bytes);
        Push p = new Push(g.getKeyGroup(), g.getSourcePartition(), g.getBatchSeq(), g.getFirstOffset(), g.getPulledAt(),
                PackedArrays.unpackLongs(g.getKeys()),
                PackedArrays.unpackInts(g.getOccurrences()),
                PackedArrays.unpackLongs(g.getRowVersions()),
                PackedArrays.unpackFloats(g.getGradients()));
        p.cutAt = g.getCutAt();
        p.sentAt = g.getSentAt();
        return p;
    }
}
