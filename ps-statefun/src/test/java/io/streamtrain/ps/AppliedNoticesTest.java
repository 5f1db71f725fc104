package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.message.PushApplied;
import java.util.List;
import org.junit.jupiter.api.Test;

class AppliedNoticesTest {
    @Test
    void interleavedPushesBecomeOneNoticePerBatchThatCountsThem() {
        AppliedNotices notices = new AppliedNotices();
        notices.add(3, 10);
        notices.add(1, 4);
        notices.add(3, 10);
        notices.add(3, 11);
        notices.add(1, 4);
        notices.add(3, 10);
        List<PushApplied> done = notices.flush();
        assertEquals(3, done.size(), "one notice per (partition, batch)");
        assertNotice(done.get(0), 3, 10, 3);
        assertNotice(done.get(1), 1, 4, 2);
        assertNotice(done.get(2), 3, 11, 1);
        assertTrue(notices.isEmpty(), "nothing is open after a flush");
        assertTrue(notices.flush().isEmpty());
    }

    @Test
    void onlyTheFirstNoticeOfAWindowAsksForAFlush() {
        AppliedNotices notices = new AppliedNotices();
        assertTrue(notices.add(3, 10));
        assertFalse(notices.add(3, 10));
        assertFalse(notices.add(1, 4));
        notices.flush();
        assertTrue(notices.add(1, 4), "a flush closes the window");
    }

    @Test
    void aBatchSeenAgainAfterAFlushIsCountedInTheNextNoticeAndNoPushIsLost() {
        AppliedNotices notices = new AppliedNotices();
        int[] partitions = {0, 1, 1, 0, 0, 2, 1};
        int counted = 0;
        for (int i = 0; i < partitions.length; i++) {
            notices.add(partitions[i], 7);
            if (i == 3) {
                counted += notices.flush().stream().mapToInt(n -> n.pushes).sum();
            }
        }
        counted += notices.flush().stream().mapToInt(n -> n.pushes).sum();
        assertEquals(partitions.length, counted);
    }

    @Test
    void theWireFormatRoundTrips() {
        PushApplied back = PushApplied.fromBytes(new PushApplied(5, 1L << 40, 17).toBytes());
        assertNotice(back, 5, 1L << 40, 17);
        assertEquals(null, PushApplied.fromBytes(new byte[3]), "a foreign record is not a notice");
    }

    private static void assertNotice(PushApplied n, int partition, long seq, int pushes) {
        assertEquals(partition, n.sourcePartition);
        assertEquals(seq, n.batchSeq);
        assertEquals(pushes, n.pushes);
    }
}
