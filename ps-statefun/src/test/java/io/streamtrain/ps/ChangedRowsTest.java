package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ps.row.EmbeddingRow;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangedRowsTest {
    @Test
    void aCheckpointsCopyHoldsEveryChangedRowOfTheCacheAndNoOther() throws Exception {
        RowCache cache = new RowCache(2000, 3, 3, (key, row) -> {});
        EmbeddingRow row = new EmbeddingRow(new float[3], new float[3]);
        int changed = 0;
        for (long key = -5; key < 1500; key += 7) { // past the first chunk of places
            for (int j = 0; j < 3; j++) {
                row.weights[j] = key * 0.5f + j;
                row.slots[j] = key * 0.25f - j;
            }
            row.count = key * 3;
            row.version = key + 1;
            row.updatedAt = key * 1000;
            if (key % 2 == 0) {
                cache.putChanged(key, row);
                changed++;
            } else {
                cache.put(key, row); // as RocksDB holds it: not in the copy
            }
        }
        ChangedRows.Writer writer = new ChangedRows.Writer(cache.changedCount(), 3, 3);
        cache.writeChanged(writer);
        Map<Long, EmbeddingRow> read = new HashMap<>();
        int rows = ChangedRows.read(writer.toBytes(), read::put);

        assertEquals(107, changed);
        assertEquals(changed, cache.changedCount(), "the copy leaves the rows changed");
        assertEquals(changed, rows);
        assertEquals(changed, read.size());
        for (Map.Entry<Long, EmbeddingRow> e : read.entrySet()) {
            long key = e.getKey();
            EmbeddingRow r = e.getValue();
            assertEquals(0, key % 2, "only changed rows: " + key);
            assertArrayEquals(new float[] {key * 0.5f, key * 0.5f + 1, key * 0.5f + 2}, r.weights);
            assertArrayEquals(new float[] {key * 0.25f, key * 0.25f - 1, key * 0.25f - 2}, r.slots);
            assertEquals(key * 3, r.count);
            assertEquals(key + 1, r.version);
            assertEquals(key * 1000, r.updatedAt);
        }
    }

    @Test
    void noRowsIsAValueToo() throws Exception {
        int[] seen = {0};
        assertEquals(0, ChangedRows.read(new ChangedRows.Writer(0, 17, 16).toBytes(), (key, row) -> seen[0]++));
        assertEquals(0, seen[0]);
    }

    @Test
    void aValueMustHoldTheRowsItAnnounced() {
        assertThrows(IllegalStateException.class, () -> new ChangedRows.Writer(2, 1, 1).toBytes());
    }

    @Test
    void refusesAValueOfAnotherFormat() {
        byte[] value = new ChangedRows.Writer(0, 17, 16).toBytes();
        value[3] = 9;
        IOException e = assertThrows(IOException.class, () -> ChangedRows.read(value, (key, row) -> {}));
        assertTrue(e.getMessage().contains("format 9"), e.getMessage());
    }
}
