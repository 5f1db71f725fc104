package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RowCacheTest {
    @Test
    void theOldestRowLeavesFirstAndReadsDoNotReorder() throws Exception {
        RowCache cache = new RowCache(2, 2, 1, RowCacheTest::neverWritten);
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
    void keepsACopyWithEveryFieldOfTheRow() throws Exception {
        RowCache cache = new RowCache(4, 2, 1, RowCacheTest::neverWritten);
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
    void aCacheOfNoRowsHoldsNothing() throws Exception {
        RowCache cache = new RowCache(0, 2, 1, RowCacheTest::neverWritten);
        cache.put(1, row(1));
        assertNull(get(cache, 1));
    }

    /** Puts, overwrites and evictions, no removals: exactly an insertion-ordered map of the same capacity. */
    @Test
    void behavesLikeAnInsertionOrderedMapOfTheSameCapacity() throws Exception {
        behavesLikeTheModel(64, 300, false);
    }

    /** A capacity beyond its first arrays: the table and the chunks grow while rows arrive, and nothing is lost. */
    @Test
    void growsToItsCapacityWithoutLosingOrReorderingRows() throws Exception {
        behavesLikeTheModel(5_000, 3_000, false);
    }

    /** With removals (expired rows): a removed row is gone, and its place is reused in turn, never a live row's. */
    @Test
    void removalsFreeTheKeyAndTheOldestPlaceIsReusedInTurn() throws Exception {
        behavesLikeTheModel(64, 300, true);
        behavesLikeTheModel(3_000, 3_000, true);
    }

    /**
     * Against a model of places: each new key takes the next place, the oldest once all are used;
     * a key stays cached until it is removed or its place is taken; an overwrite keeps its place.
     */
    private static void behavesLikeTheModel(int capacity, int idsPerField, boolean removals) throws Exception {
        RowCache cache = new RowCache(capacity, 2, 1, RowCacheTest::neverWritten);
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
    void everyChangeIsKeptUntilItIsWrittenBack() throws Exception {
        RowCache cache = new RowCache(8, 2, 1, RowCacheTest::neverWritten);
        assertTrue(cache.putChanged(1, row(1)), "a row's first change is kept");
        assertTrue(cache.putChanged(1, row(2)), "and its next");
        assertTrue(cache.putChanged(2, row(3)));
        assertEquals(2, cache.changedCount(), "each changed row counts once");
        writeBackAll(cache);
        assertEquals(0, cache.changedCount());
        assertTrue(cache.putChanged(2, row(4)), "changed again after its write-back: kept again");
        assertEquals(1, cache.changedCount());
        assertRow(row(4), cache, 2);
    }

    @Test
    void aChangedRowIsWrittenBackWhenItLeavesAndAnUnchangedOneIsNot() throws Exception {
        Map<Long, EmbeddingRow> written = new HashMap<>();
        RowCache cache = new RowCache(2, 2, 1, (key, row) -> written.put(key, copy(row)));
        cache.putChanged(1, row(0));
        assertTrue(cache.putChanged(1, row(1)));
        cache.put(2, row(2));
        cache.put(3, row(3)); // takes row 1's place
        assertEquals(Set.of(1L), written.keySet());
        assertSame(row(1), written.get(1L));
        cache.put(4, row(4)); // takes row 2's place: unchanged, nothing to write
        assertEquals(1, written.size());
        assertEquals(0, cache.changedCount());
    }

    @Test
    void listsEachChangedRowOnceUntilWrittenBack() throws Exception {
        RowCache cache = new RowCache(8, 2, 1, RowCacheTest::neverWritten);
        for (int stamp = 0; stamp < 6; stamp += 2) {
            cache.putChanged(1, row(stamp));
            cache.putChanged(2, row(stamp + 1));
        }
        cache.put(3, row(3));
        cache.put(2, row(6)); // an unchanged put does not make a changed row clean
        assertEquals(2, cache.changedCount());
        long[] keys = cache.changedKeys(Long.MAX_VALUE);
        Arrays.sort(keys);
        assertArrayEquals(new long[] {1, 2}, keys);
        writeBackAll(cache);
        assertEquals(0, cache.changedCount());
        assertEquals(0, cache.changedKeys(Long.MAX_VALUE).length);
        assertRow(row(4), cache, 1);
    }

    @Test
    void listsTheChangedRowsThatWentQuietAndForgetsTheOnesWritten() throws Exception {
        RowCache cache = new RowCache(8, 2, 1, RowCacheTest::neverWritten);
        for (int key = 1; key <= 3; key++) {
            cache.putChanged(key, row(0));
        }
        cache.putChanged(1, row(10)); // updatedAt 13
        cache.putChanged(2, row(20)); // updatedAt 23
        cache.putChanged(3, row(30)); // updatedAt 33
        long[] quiet = cache.changedKeys(30);
        Arrays.sort(quiet);
        assertArrayEquals(new long[] {1, 2}, quiet, "updated before 30");
        cache.written(cache.find(1));
        assertArrayEquals(new long[] {2}, cache.changedKeys(30));
        assertEquals(2, cache.changedCount());
        assertTrue(cache.putChanged(1, row(40)), "a row written early keeps its next change");
        assertRow(row(40), cache, 1);
    }

    @Test
    void aRemovedChangedRowIsNeitherListedNorWrittenBack() throws Exception {
        RowCache cache = new RowCache(1, 2, 1, RowCacheTest::neverWritten);
        cache.putChanged(1, row(0));
        assertTrue(cache.putChanged(1, row(1)));
        cache.remove(1);
        assertEquals(0, cache.changedKeys(Long.MAX_VALUE).length);
        cache.put(2, row(2)); // reuses the place; no write-back of the removed row
        assertRow(row(2), cache, 2);
    }

    @Test
    void withoutRoomEveryChangeIsTheCallersToWrite() throws Exception {
        RowCache cache = new RowCache(0, 2, 1, RowCacheTest::neverWritten);
        assertFalse(cache.putChanged(7, row(7)));
        assertFalse(cache.putChanged(7, row(8)));
        assertEquals(0, cache.changedCount());
    }

    /**
     * The PS's use of the cache against a model of RocksDB: unchanged puts are rows RocksDB holds;
     * a change the cache does not keep the caller writes at once; kept ones reach RocksDB through
     * eviction, early write-backs of the rows that went quiet, or a write-back of every changed row
     * (as before a checkpoint). After any sequence, each key's latest row is in the cache or in
     * RocksDB.
     */
    @Test
    void noChangedRowIsLostThroughEvictionsRemovalsAndWriteBacks() throws Exception {
        for (int capacity : new int[] {0, 1, 16, 2_000}) {
            Map<Long, EmbeddingRow> store = new HashMap<>();
            RowCache cache = new RowCache(capacity, 2, 1, (key, row) -> store.put(key, copy(row)));
            Map<Long, Long> latest = new HashMap<>(); // key -> stamp of its latest row; absent: removed (expired)
            Random random = new Random(capacity);
            int kept = 0;
            for (int step = 0; step < 100_000; step++) {
                long key = ((long) random.nextInt(3) << 48) | random.nextInt(500);
                int action = random.nextInt(200);
                if (action < 150) {
                    if (cache.putChanged(key, row(step))) {
                        kept++;
                    } else {
                        store.put(key, row(step));
                    }
                    latest.put(key, (long) step);
                } else if (action < 180) {
                    store.put(key, row(step)); // read from RocksDB (or drawn new), then cached
                    cache.put(key, row(step));
                    latest.put(key, (long) step);
                } else if (action < 190) {
                    cache.remove(key); // expired: gone from both
                    store.remove(key);
                    latest.remove(key);
                } else if (action < 198) {
                    for (long k : cache.changedKeys(step - 300)) { // rows that went quiet: written early, stay cached
                        store.put(k, get(cache, k));
                        cache.written(cache.find(k));
                    }
                } else {
                    for (long k : cache.changedKeys(Long.MAX_VALUE)) { // at the end of input: all of them
                        store.put(k, get(cache, k));
                        cache.written(cache.find(k));
                    }
                }
            }
            for (Map.Entry<Long, Long> e : latest.entrySet()) {
                EmbeddingRow cached = get(cache, e.getKey());
                assertSame(row(e.getValue()), cached != null ? cached : store.get(e.getKey()));
            }
            assertTrue(capacity < 1_000 || kept > 5_000, "a cache that holds the table keeps most changes: " + kept);
        }
    }

    @Test
    void capacityFollowsTheHeapBudgetAndTheRowWidth() {
        long budget = 100L << 20;
        int fm = RowCache.capacityFor(budget, 17, 17); // dim 16 + linear weight, Adagrad slots
        int lr = RowCache.capacityFor(budget, 1, 1);
        assertTrue(fm > 400_000 && fm < 500_000, "~232 bytes per FM row: " + fm);
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

    private static void neverWritten(long key, EmbeddingRow row) {
        throw new AssertionError("row " + key + " was never changed, yet written back");
    }

    private static EmbeddingRow copy(EmbeddingRow row) {
        EmbeddingRow copy = new EmbeddingRow(row.weights.clone(), row.slots.clone());
        copy.count = row.count;
        copy.version = row.version;
        copy.updatedAt = row.updatedAt;
        return copy;
    }

    private static void assertSame(EmbeddingRow expected, EmbeddingRow actual) {
        assertNotNull(actual);
        assertArrayEquals(expected.weights, actual.weights);
        assertArrayEquals(expected.slots, actual.slots);
        assertEquals(expected.count, actual.count);
        assertEquals(expected.version, actual.version);
        assertEquals(expected.updatedAt, actual.updatedAt);
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

    /** What the PS's write-back does to the cache: every changed row marked written. */
    private static void writeBackAll(RowCache cache) {
        for (long k : cache.changedKeys(Long.MAX_VALUE)) {
            cache.written(cache.find(k));
        }
    }
}
