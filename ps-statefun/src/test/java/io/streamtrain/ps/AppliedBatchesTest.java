package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AppliedBatchesTest {
    /** Stands in for the keyed state: (group, partition) → sequence, and counts its reads. */
    private final Map<List<Integer>, Long> state = new HashMap<>();
    private int reads;
    /** The key group the operator's key context is set to. */
    private int currentGroup;
    private final AppliedBatches batches = new AppliedBatches(partition -> {
        reads++;
        return state.get(List.of(currentGroup, partition));
    });

    /** Whether the pair applied the batch already, asked with the current key set to {@code group}, as the PS does. */
    private boolean applied(int group, int partition, long seq) throws Exception {
        currentGroup = group;
        return batches.applied(group, partition, seq);
    }

    @Test
    void aPairIsReadFromStateOnceAndDropsWhatItAppliedAlready() throws Exception {
        state.put(List.of(3, 0), 7L); // restored: batch 7 of partition 0 was applied in group 3

        assertTrue(applied(3, 0, 7), "a replay of the restored batch");
        assertFalse(applied(3, 0, 8));
        batches.advance(3, 0, 8);
        assertTrue(applied(3, 0, 8), "batch 8 again");
        assertFalse(applied(3, 0, 9));
        assertEquals(1, reads, "state read once per pair");

        assertFalse(applied(4, 0, 0), "another key group keeps its own sequence");
        assertFalse(applied(3, 1, 0), "another partition too");
        assertEquals(3, reads);
    }

    @Test
    void writeBackWritesEachAdvancedPairOnceWithItsLatestSequence() throws Exception {
        applied(3, 0, 0);
        batches.advance(3, 0, 0);
        applied(3, 0, 1);
        batches.advance(3, 0, 1);
        applied(5, 2, 0); // seen, not applied: nothing to write

        List<String> written = new ArrayList<>();
        batches.writeBack((group, partition, seq) -> written.add(group + "/" + partition + "=" + seq));
        assertEquals(List.of("3/0=1"), written);

        written.clear();
        batches.writeBack((group, partition, seq) -> written.add(group + "/" + partition + "=" + seq));
        assertEquals(List.of(), written, "nothing advanced since");
    }
}
