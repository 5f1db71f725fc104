package io.streamtrain.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.contract.RowVersion;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The follower's de-duplication rule: per row the highest version, and only above the store's. */
class NewestUpdatesTest {
    private static final long A = 11;
    private static final long B = 12;
    private static final long NONE = RowVersion.NONE;

    @Test
    void aPollKeepsEachRowsHighestVersionWhateverTheOrder() {
        NewestUpdates updates = new NewestUpdates();
        updates.add(A, row(2), 2);
        updates.add(A, row(1), 1); // older, published again by a recovery
        updates.add(B, row(7), 7);
        updates.add(A, row(3), 3);
        updates.add(A, row(2), 2); // a repeat
        assertEquals(5, updates.offered());
        Map<Long, Bundle.RowUpdate> written = updates.newerThan(updates.keys(), new long[] {NONE, NONE});
        assertEquals(List.of(A, B), List.copyOf(written.keySet()));
        assertArrayEquals(row(3), written.get(A).weights());
        assertEquals(3, written.get(A).version());
        assertEquals(7, written.get(B).version());
    }

    @Test
    void anUpdateAtOrBelowTheStoredVersionIsNotWritten() {
        NewestUpdates updates = new NewestUpdates();
        updates.add(A, row(3), 3);
        updates.add(B, row(5), 5);
        Map<Long, Bundle.RowUpdate> written = updates.newerThan(updates.keys(), new long[] {3, 4});
        assertEquals(List.of(B), List.copyOf(written.keySet()), "A at 3 is what the store holds; B at 5 is newer than 4");
    }

    @Test
    void aRowWithoutAStoredVersionTakesAnyUpdate() {
        NewestUpdates updates = new NewestUpdates();
        updates.add(A, row(1), 1);
        assertEquals(List.of(A), List.copyOf(updates.newerThan(updates.keys(), new long[] {NONE}).keySet()),
                "the bundle's own rows have no version");
    }

    @Test
    void unversionedUpdatesAreAppliedInTopicOrderOverAnything() {
        NewestUpdates updates = new NewestUpdates();
        updates.add(A, row(9), 9);
        updates.add(A, row(4), NONE); // checkpoint-bound: the later record is the row
        Map<Long, Bundle.RowUpdate> written = updates.newerThan(updates.keys(), new long[] {12});
        assertArrayEquals(row(4), written.get(A).weights());
        assertEquals(NONE, written.get(A).version());
    }

    private static float[] row(float v) {
        return new float[] {v, v + 1};
    }
}
