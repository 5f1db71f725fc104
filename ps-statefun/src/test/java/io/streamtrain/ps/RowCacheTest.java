package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

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
        int capacity = 64;
        RowCache cache = new RowCache(capacity);
        Map<Long, EmbeddingRow> model = new LinkedHashMap<>();
        Random random = new Random(11);
        for (int step = 0; step < 200_000; step++) {
            long key = key(random);
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

    private static EmbeddingRow row() {
        return new EmbeddingRow(new float[1], new float[1]);
    }
}
