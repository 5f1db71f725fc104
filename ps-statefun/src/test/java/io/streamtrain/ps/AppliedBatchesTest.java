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

    private AppliedBatches.Stored storedIn(int group) {
        return partition -> {
            reads++;
            return state.get(List.of(group, partition));
        };
    }

    @Test
    void aPairIsReadFromStateOnceAndDropsWhatItAppliedAlready() throws Exception {
        state.put(List.of(3, 0), 7L); // restored: batch 7 of partition 0 was applied in group 3
        AppliedBatches applied = new AppliedBatches();

        assertTrue(applied.applied(3, 0, 7, storedIn(3)), "a replay of the restored batch");
        assertFalse(applied.applied(3, 0, 8, storedIn(3)));
        applied.advance(3, 0, 8);
        assertTrue(applied.applied(3, 0, 8, storedIn(3)), "batch 8 again");
        assertFalse(applied.applied(3, 0, 9, storedIn(3)));
        assertEquals(1, reads, "state read once per pair");

        assertFalse(applied.applied(4, 0, 0, storedIn(4)), "another key group keeps its own sequence");
        assertFalse(applied.applied(3, 1, 0, storedIn(3)), "another partition too");
        assertEquals(3, reads);
    }

    @Test
    void writeBackWritesEachAdvancedPairOnceWithItsLatestSequence() throws Exception {
        AppliedBatches applied = new AppliedBatches();
        applied.applied(3, 0, 0, storedIn(3));
        applied.advance(3, 0, 0);
        applied.applied(3, 0, 1, storedIn(3));
        applied.advance(3, 0, 1);
        applied.applied(5, 2, 0, storedIn(5)); // seen, not applied: nothing to write

        List<String> written = new ArrayList<>();
        applied.writeBack((group, partition, seq) -> written.add(group + "/" + partition + "=" + seq));
        assertEquals(List.of("3/0=1"), written);

        written.clear();
        applied.writeBack((group, partition, seq) -> written.add(group + "/" + partition + "=" + seq));
        assertEquals(List.of(), written, "nothing advanced since");
    }
}
