package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Rows for one {@code MapState.putAll} (one RocksDB write batch), in the order they were added:
 * {@code putAll} only iterates its map, and a hash map of row keys cost the PS's write-backs a fifth
 * of their time (docs/decisions/0006-write-back-row-cache.md). The caller adds each key once;
 * reused after {@link #clear}.
 */
final class RowBatch extends AbstractMap<Long, EmbeddingRow> {
    private long[] keys = new long[64];
    private EmbeddingRow[] rows = new EmbeddingRow[64];
    private int size;

    void add(long key, EmbeddingRow row) {
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, 2 * size);
            rows = Arrays.copyOf(rows, 2 * size);
        }
        keys[size] = key;
        rows[size++] = row;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void clear() {
        Arrays.fill(rows, 0, size, null);
        size = 0;
    }

    @Override
    public Set<Map.Entry<Long, EmbeddingRow>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return size;
            }

            @Override
            public Iterator<Map.Entry<Long, EmbeddingRow>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Map.Entry<Long, EmbeddingRow> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new SimpleImmutableEntry<>(keys[i], rows[i]);
                    }
                };
            }
        };
    }
}
