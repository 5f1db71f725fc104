package io.streamtrain.ps.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PushCodecTest {
    @Test
    void aPushComesBackWithEveryFieldIncludingTheBatchersTimeStamps() throws Exception {
        Push push = new Push(7, 3, 42L, 1000L, 1_700_000_000_300L, new long[] {5L, 9L}, new int[] {1, 2},
                new long[] {11L, 12L}, new float[] {0.5f, -0.25f, 1f, 2f});
        push.cutAt = 1_700_000_000_100L;
        push.sentAt = 1_700_000_000_150L;
        PushCodec codec = new PushCodec();

        Push back = codec.decode(codec.encode(push));

        assertEquals(7, back.keyGroup);
        assertEquals(3, back.sourcePartition);
        assertEquals(42L, back.batchSeq);
        assertEquals(1000L, back.firstOffset);
        assertEquals(1_700_000_000_300L, back.pulledAt);
        assertEquals(1_700_000_000_100L, back.cutAt);
        assertEquals(1_700_000_000_150L, back.sentAt);
        assertArrayEquals(new long[] {5L, 9L}, back.keys);
        assertArrayEquals(new int[] {1, 2}, back.occurrences);
        assertArrayEquals(new long[] {11L, 12L}, back.versions);
        assertArrayEquals(new float[] {0.5f, -0.25f, 1f, 2f}, back.gradients);
    }
}
