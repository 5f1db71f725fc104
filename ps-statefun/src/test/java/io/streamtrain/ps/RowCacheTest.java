package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RowCacheTest {
    @Test
    void theOldestRowLeavesFirstAndReadsDoNotReorder() {
        RowCache cache = new RowCache(2);
        EmbeddingRow a = row();
        cache.put(1, a);
        cache.put(2, row());
        assertSame(a, cache.get(1));
        cache.put(3, row());
        assertNull(cache.get(1), "row 1 was put first; reading it did not make it younger");
        assertNotNull(cache.get(2));
        assertNotNull(cache.get(3));
        cache.remove(2);
        assertNull(cache.get(2));
    }

    /** Without removals: exactly an insertion-ordered map of the same capacity, through overwrites and evictions. */
    @Test
    void behavesLikeAnInsertionOrderedMapOfTheSameCapacity() {
        behavesLikeAnInsertionOrderedMap(64, 300);
    }

    /** A capacity beyond its first arrays: the table and the ring grow while rows arrive, and nothing is lost. */
    @Test
    void growsToItsCapacityWithoutLosingOrReorderingRows() {
        behavesLikeAnInsertionOrderedMap(5_000, 3_000);
    }

    private static void behavesLikeAnInsertionOrderedMap(int capacity, int idsPerField) {
        RowCache cache = new RowCache(capacity);
        Map<Long, EmbeddingRow> model = new LinkedHashMap<>();
        Random random = new Random(11);
        for (int step = 0; step < 200_000; step++) {
            long key = ((long) random.nextInt(4) << 48) | random.nextInt(idsPerField);
            if (random.nextBoolean()) {
                EmbeddingRow row = row();
                if (!model.containsKey(key) && model.size() == capacity) {
                    model.remove(model.keySet().iterator().next());
                }
                model.put(key, row); // an overwrite keeps its place in line
                cache.put(key, row);
            }
            assertSame(model.get(key), cache.get(key), "step " + step + ", key " + key);
        }
    }

    /** With removals (expired rows) a row may leave early, but the cache never answers with a row that is not current. */
    @Test
    void neverAnswersWithARowThatIsNotCurrent() {
        RowCache cache = new RowCache(64);
        Map<Long, EmbeddingRow> current = new HashMap<>();
        Random random = new Random(12);
        for (int step = 0; step < 200_000; step++) {
            long key = key(random);
            int action = random.nextInt(10);
            if (action < 6) {
                EmbeddingRow row = row();
                current.put(key, row);
                cache.put(key, row);
            } else if (action < 8) {
                current.remove(key);
                cache.remove(key);
                assertNull(cache.get(key), "a removed row is gone");
            }
            EmbeddingRow cached = cache.get(key);
            if (cached != null) {
                assertSame(current.get(key), cached, "step " + step + ", key " + key);
            }
        }
    }

    /** Few distinct keys over several fields: many collisions and long runs in the probe table. */
    private static long key(Random random) {
        return ((long) random.nextInt(4) << 48) | random.nextInt(300);
    }

    @Test
    void capacityFollowsTheHeapBudgetAndTheRowWidth() {
        long budget = 100L << 20;
        int fm = RowCache.capacityFor(budget, 17, 17); // dim 16 + linear weight, Adagrad slots
        int lr = RowCache.capacityFor(budget, 1, 1);
        assertTrue(fm > 300_000 && fm < 400_000, "~280 bytes per FM row: " + fm);
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

    private static EmbeddingRow row() {
        return new EmbeddingRow(new float[1], new float[1]);
    }
}
