package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.streamtrain.ps.message.PushApplied;
import org.junit.jupiter.api.Test;

class AppliedNoticesTest {
    @Test
    void aRunOfOneBatchsPushesBecomesOneNoticeThatCountsThem() {
        AppliedNotices notices = new AppliedNotices();
        assertNull(notices.add(3, 10));
        assertNull(notices.add(3, 10));
        assertNull(notices.add(3, 10));
        PushApplied done = notices.add(3, 11);
        assertEquals(3, done.sourcePartition);
        assertEquals(10, done.batchSeq);
        assertEquals(3, done.pushes);
        PushApplied open = notices.flush();
        assertEquals(11, open.batchSeq);
        assertEquals(1, open.pushes);
        assertNull(notices.flush(), "nothing is open after a flush");
    }

    @Test
    void interleavedBatchesAreCountedSeparatelyAndNoPushIsLost() {
        AppliedNotices notices = new AppliedNotices();
        int[] partitions = {0, 1, 1, 0, 0, 2};
        int counted = 0;
        for (int p : partitions) {
            PushApplied done = notices.add(p, 7);
            counted += done == null ? 0 : done.pushes;
        }
        counted += notices.flush().pushes;
        assertEquals(partitions.length, counted);
    }

    @Test
    void theWireFormatRoundTrips() {
        PushApplied back = PushApplied.fromBytes(new PushApplied(5, 1L << 40, 17).toBytes());
        assertEquals(5, back.sourcePartition);
        assertEquals(1L << 40, back.batchSeq);
        assertEquals(17, back.pushes);
        assertNull(PushApplied.fromBytes(new byte[3]), "a foreign record is not a notice");
    }
}
