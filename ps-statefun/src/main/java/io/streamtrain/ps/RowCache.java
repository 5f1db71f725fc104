package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rows a PS subtask touched last, on the heap, in front of its RocksDB state. Every pull reads
 * a row and every push of the same batch, milliseconds later, reads and writes it again; served
 * from here, the push costs one RocksDB write instead of a read and a write. Write-through: the
 * PS puts every changed row into RocksDB at once, so checkpoints never depend on this cache, and
 * a restore starts with it empty. The oldest rows leave first: a push comes within the batches
 * in flight of its pull, so insertion order serves it as well as recency would, and a read does
 * not relink the entry (an access-ordered map made every hit touch two more entries, and the
 * cache's reads were then half of the PS thread in a profile).
 */
final class RowCache {
    private final Map<Long, EmbeddingRow> rows;

    RowCache(int capacity) {
        this.rows = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, EmbeddingRow> eldest) {
                return size() > capacity;
            }
        };
    }

    /** The cached row, or null. */
    EmbeddingRow get(long key) {
        return rows.get(key);
    }

    void put(long key, EmbeddingRow row) {
        rows.put(key, row);
    }

    void remove(long key) {
        rows.remove(key);
    }
}
