package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RowCacheTest {
    @Test
    void theOldestRowLeavesFirstAndReadsDoNotReorder() {
        RowCache cache = new RowCache(2, 2, 1);
        cache.put(1, row(1));
        cache.put(2, row(2));
        assertRow(row(1), cache, 1);
        cache.put(3, row(3));
        assertNull(get(cache, 1), "row 1 was put first; reading it did not make it younger");
        assertRow(row(2), cache, 2);
        assertRow(row(3), cache, 3);
        cache.remove(2);
        assertNull(get(cache, 2));
    }

    @Test
    void keepsACopyWithEveryFieldOfTheRow() {
        RowCache cache = new RowCache(4, 2, 1);
        EmbeddingRow row = row(7);
        cache.put(9, row);
        row.weights[0] = -1; // the caller's later changes do not reach the cache
        row.version = 99;
        EmbeddingRow copy = get(cache, 9);
        assertRow(row(7), cache, 9);
        copy.weights[1] = -2; // nor do changes to a copy read out
        assertRow(row(7), cache, 9);
        float[] weights = new float[5];
        cache.copyWeights(cache.find(9), weights, 3);
        assertArrayEquals(new float[] {0, 0, 0, 7, 7.5f}, weights);
        assertEquals(row(7).version, cache.version(cache.find(9)));
        assertEquals(row(7).updatedAt, cache.updatedAt(cache.find(9)));
        assertThrows(IllegalArgumentException.class, () -> cache.put(10, new EmbeddingRow(new float[3], new float[1])));
    }

    @Test
    void aCacheOfNoRowsHoldsNothing() {
        RowCache cache = new RowCache(0, 2, 1);
        cache.put(1, row(1));
        assertNull(get(cache, 1));
    }

    /** Puts, overwrites and evictions, no removals: exactly an insertion-ordered map of the same capacity. */
    @Test
    void behavesLikeAnInsertionOrderedMapOfTheSameCapacity() {
        behavesLikeTheModel(64, 300, false);
    }

    /** A capacity beyond its first arrays: the table and the chunks grow while rows arrive, and nothing is lost. */
    @Test
    void growsToItsCapacityWithoutLosingOrReorderingRows() {
        behavesLikeTheModel(5_000, 3_000, false);
    }

    /** With removals (expired rows): a removed row is gone, and its place is reused in turn, never a live row's. */
    @Test
    void removalsFreeTheKeyAndTheOldestPlaceIsReusedInTurn() {
        behavesLikeTheModel(64, 300, true);
        behavesLikeTheModel(3_000, 3_000, true);
    }

    /**
     * Against a model of places: each new key takes the next place, the oldest once all are used;
     * a key stays cached until it is removed or its place is taken; an overwrite keeps its place.
     */
    private static void behavesLikeTheModel(int capacity, int idsPerField, boolean removals) {
        RowCache cache = new RowCache(capacity, 2, 1);
        Map<Long, Long> cached = new HashMap<>(); // key -> the stamp of its current row
        Map<Long, Integer> placeOf = new HashMap<>();
        ArrayDeque<long[]> places = new ArrayDeque<>(); // (key, place) in insertion order
        Random random = new Random(11);
        for (int step = 0; step < 200_000; step++) {
            long key = ((long) random.nextInt(4) << 48) | random.nextInt(idsPerField);
            int action = random.nextInt(10);
            if (action < 5) {
                if (!cached.containsKey(key)) {
                    int place = places.size();
                    if (places.size() == capacity) {
                        long[] oldest = places.removeFirst();
                        place = (int) oldest[1];
                        if (placeOf.get(oldest[0]) != null && placeOf.get(oldest[0]) == place) {
                            cached.remove(oldest[0]);
                            placeOf.remove(oldest[0]);
                        }
                    }
                    places.addLast(new long[] {key, place});
                    placeOf.put(key, place);
                }
                cached.put(key, (long) step);
                cache.put(key, row(step));
            } else if (removals && action < 7) {
                cached.remove(key);
                placeOf.remove(key);
                cache.remove(key);
            }
            Long stamp = cached.get(key);
            if (stamp == null) {
                assertNull(get(cache, key), "step " + step + ", key " + key);
            } else {
                assertRow(row(stamp), cache, key);
            }
        }
        for (Map.Entry<Long, Long> e : cached.entrySet()) {
            assertRow(row(e.getValue()), cache, e.getKey());
        }
    }

    @Test
    void capacityFollowsTheHeapBudgetAndTheRowWidth() {
        long budget = 100L << 20;
        int fm = RowCache.capacityFor(budget, 17, 17); // dim 16 + linear weight, Adagrad slots
        int lr = RowCache.capacityFor(budget, 1, 1);
        assertTrue(fm > 450_000 && fm < 550_000, "~216 bytes per FM row: " + fm);
        assertTrue(lr > 3 * fm / 2, "narrow rows: more of them fit: " + lr);
        assertEquals(2 * fm, RowCache.capacityFor(2 * budget, 17, 17), 1, "twice the budget, twice the rows");
        assertEquals(0, RowCache.capacityFor(0, 17, 17));
    }

    @Test
    void aFixedRowCountWinsOverTheHeapFraction() {
        assertEquals(100, new RowCacheSize(100, 0.5).capacity(17, 17, 1L << 30));
        assertEquals(RowCache.capacityFor(1L << 27, 17, 17), new RowCacheSize(null, 0.125).capacity(17, 17, 1L << 30));
        assertEquals(0, new RowCacheSize(null, 0).capacity(17, 17, 1L << 30), "fraction 0: no cache");
        assertThrows(IllegalArgumentException.class, () -> new RowCacheSize(null, 1.5));
    }

    /** A row whose every field tells {@code stamp}. */
    private static EmbeddingRow row(long stamp) {
        EmbeddingRow row = new EmbeddingRow(new float[] {stamp, stamp + 0.5f}, new float[] {-stamp});
        row.count = stamp + 1;
        row.version = stamp + 2;
        row.updatedAt = stamp + 3;
        return row;
    }

    private static EmbeddingRow get(RowCache cache, long key) {
        int place = cache.find(key);
        return place < 0 ? null : cache.read(place, new EmbeddingRow(new float[2], new float[1]));
    }

    private static void assertRow(EmbeddingRow expected, RowCache cache, long key) {
        EmbeddingRow actual = get(cache, key);
        assertNotNull(actual, "key " + key + " is cached");
        assertArrayEquals(expected.weights, actual.weights, "weights of " + key);
        assertArrayEquals(expected.slots, actual.slots, "slots of " + key);
        assertEquals(expected.count, actual.count);
        assertEquals(expected.version, actual.version);
        assertEquals(expected.updatedAt, actual.updatedAt);
    }
}
