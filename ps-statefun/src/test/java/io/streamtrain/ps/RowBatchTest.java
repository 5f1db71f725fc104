package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowBatchTest {
    @Test
    void iteratesItsRowsInTheOrderAddedAndStartsEmptyAfterClear() {
        RowBatch batch = new RowBatch();
        List<EmbeddingRow> added = new ArrayList<>();
        for (long key = 200; key > 0; key--) { // past the first arrays, keys not in order
            EmbeddingRow row = new EmbeddingRow(new float[] {key}, new float[0]);
            added.add(row);
            batch.add(key * 7, row);
        }
        assertEquals(200, batch.size());
        int i = 0;
        for (Map.Entry<Long, EmbeddingRow> e : batch.entrySet()) {
            assertEquals((200 - i) * 7L, e.getKey());
            assertSame(added.get(i), e.getValue());
            i++;
        }
        assertEquals(200, i);
        assertEquals(added.get(0), batch.get(1400L), "a Map like any other for its readers");
        batch.clear();
        assertTrue(batch.isEmpty());
        assertTrue(batch.entrySet().iterator().hasNext() == false);
        batch.add(5, added.get(3));
        assertEquals(Map.of(5L, added.get(3)), batch);
    }
}
