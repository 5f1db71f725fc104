package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class KeyGroupsTest {
    private final KeyGroups groups = new KeyGroups(128);

    @Test
    void everyKeyGroupHasAnIntegerKeyThatFlinkPlacesInIt() {
        for (int g = 0; g < 128; g++) {
            assertEquals(g, KeyGroupRangeAssignment.assignToKeyGroup(groups.keyOf(g), 128));
        }
    }

    @Test
    void partitionsSpreadEvenlyOverAPowerOfTwoOfSubtasks() {
        for (int parallelism = 1; parallelism <= 16; parallelism *= 2) {
            for (int l : load(parallelism, 4 * parallelism)) {
                assertEquals(4, l, "parallelism " + parallelism + ": four partitions per subtask");
            }
        }
    }

    @Test
    void noSubtaskGetsMoreThanTwiceItsShareAtOtherParallelisms() {
        for (int parallelism = 3; parallelism <= 12; parallelism++) {
            for (int l : load(parallelism, parallelism)) {
                assertTrue(l <= 2, "parallelism " + parallelism + ": at most two of " + parallelism + " partitions per subtask");
            }
        }
    }

    private int[] load(int parallelism, int partitions) {
        int[] load = new int[parallelism];
        for (int p = 0; p < partitions; p++) {
            load[KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(128, parallelism, groups.groupOfPartition(p))]++;
        }
        return load;
    }

    @Test
    void bucketsCoverAllKeyGroups() {
        Set<Integer> seen = new HashSet<>();
        for (long k = 0; k < 10_000; k++) {
            seen.add(groups.bucketOf(k));
        }
        assertEquals(128, seen.size());
    }

    @Test
    void maxParallelismMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new KeyGroups(100));
    }
}
