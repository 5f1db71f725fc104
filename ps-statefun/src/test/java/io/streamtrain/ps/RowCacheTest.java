package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.streamtrain.ps.row.EmbeddingRow;
import org.junit.jupiter.api.Test;

class RowCacheTest {
    @Test
    void theOldestRowLeavesFirstAndReadsDoNotReorder() {
        RowCache cache = new RowCache(2);
        EmbeddingRow a = new EmbeddingRow(new float[1], new float[1]);
        cache.put(1, a);
        cache.put(2, new EmbeddingRow(new float[1], new float[1]));
        assertSame(a, cache.get(1));
        cache.put(3, new EmbeddingRow(new float[1], new float[1]));
        assertNull(cache.get(1), "row 1 was put first; reading it did not make it younger");
        assertNotNull(cache.get(2));
        assertNotNull(cache.get(3));
        cache.remove(2);
        assertNull(cache.get(2));
    }
}
