package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.streamtrain.ps.row.EmbeddingRow;
import org.junit.jupiter.api.Test;

class RowCacheTest {
    @Test
    void theLeastRecentlyUsedRowLeavesFirst() {
        RowCache cache = new RowCache(2);
        EmbeddingRow a = new EmbeddingRow(new float[1], new float[1]);
        cache.put(1, a);
        cache.put(2, new EmbeddingRow(new float[1], new float[1]));
        assertSame(a, cache.get(1), "a read makes row 1 the most recent");
        cache.put(3, new EmbeddingRow(new float[1], new float[1]));
        assertNull(cache.get(2), "row 2 was used least recently");
        assertNotNull(cache.get(1));
        assertNotNull(cache.get(3));
        cache.remove(1);
        assertNull(cache.get(1));
    }
}
