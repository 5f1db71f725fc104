package io.streamtrain.train.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BatchSizeRampTest {
    @Test
    void growsBySixteenthsFromTheInitialToTheFullSize() {
        BatchSizeRamp ramp = new BatchSizeRamp(32, 1024);
        assertEquals(32, ramp.sizeOf(0));
        assertEquals(34, ramp.sizeOf(1)); // 32 + ceil(32/16)
        assertEquals(37, ramp.sizeOf(2)); // 34 + ceil(34/16)
        long examples = 0;
        int seq = 0;
        while (ramp.sizeOf(seq) < 1024) {
            assertTrue(ramp.sizeOf(seq + 1) > ramp.sizeOf(seq), "grows every batch until full");
            examples += ramp.sizeOf(seq++);
        }
        assertEquals(1024, ramp.sizeOf(seq + 1000), "stays at the full size");
        assertTrue(seq > 40 && seq < 70, "many small steps first: " + seq);
        assertTrue(examples > 8 * 1024 && examples < 24 * 1024, "about 16 full batches of examples before the full size: " + examples);
    }

    @Test
    void anInitialSizeAtOrAboveTheFullSizeIsConstant() {
        assertEquals(2, new BatchSizeRamp(32, 2).sizeOf(0));
        assertEquals(64, BatchSizeRamp.constant(64).sizeOf(0));
        assertEquals(64, BatchSizeRamp.constant(64).sizeOf(99));
    }

    @Test
    void theRampEndsAtTheFirstFullSequence() {
        BatchSizeRamp ramp = new BatchSizeRamp(32, 1024);
        long first = ramp.firstFullSeq();
        assertEquals(1024, ramp.sizeOf(first));
        assertTrue(ramp.sizeOf(first - 1) < 1024, "one step earlier is still ramping");
        assertEquals(0, BatchSizeRamp.constant(64).firstFullSeq());
        assertEquals(0, new BatchSizeRamp(32, 2).firstFullSeq());
    }
}
