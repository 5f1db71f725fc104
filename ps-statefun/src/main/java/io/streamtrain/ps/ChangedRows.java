package io.streamtrain.ps;

import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.EmbeddingRowSerializer;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.flink.core.memory.DataInputDeserializer;

/**
 * A PS subtask's changed rows at a checkpoint, as one value of its operator state
 * ({@link PsState#changedRows()}): the rows its row cache holds newer than RocksDB does. A
 * checkpoint's model is its RocksDB rows with these in their place; a restore writes them back to
 * RocksDB, and the exporter reads them over the stored rows. Layout: format, row count, then per row
 * its key and the row as {@link EmbeddingRowSerializer} writes it.
 */
public final class ChangedRows {
    private static final int FORMAT = 1;

    private ChangedRows() {}

    /** Takes each decoded row. */
    @FunctionalInterface
    public interface RowSink {
        void accept(long key, EmbeddingRow row) throws Exception;
    }

    /**
     * Writes a known number of rows into one value of exactly their size. The rows come straight
     * from the row cache's arrays ({@link RowCache#writeChanged}): a row per object, and a growing
     * buffer, had made the copy of ~20k rows take 30 ms of the checkpoint's synchronous part.
     */
    public static final class Writer {
        private final int weightWidth;
        private final int slotWidth;
        private final int rows;
        private final ByteBuffer out;
        private int added;

        public Writer(int rows, int weightWidth, int slotWidth) {
            this.weightWidth = weightWidth;
            this.slotWidth = slotWidth;
            this.rows = rows;
            int rowBytes = Long.BYTES + Integer.BYTES * 2 + Float.BYTES * (weightWidth + slotWidth) + Long.BYTES * 3;
            out = ByteBuffer.allocate(Math.toIntExact(2L * Integer.BYTES + (long) rows * rowBytes)); // big-endian, as Flink's views write
            out.putInt(FORMAT).putInt(rows);
        }

        /** One row: its weights, then its slots, from {@code floats[at ..]}, and its counters. */
        public void add(long key, float[] floats, int at, long count, long version, long updatedAt) {
            out.putLong(key);
            out.putInt(weightWidth);
            for (int i = at; i < at + weightWidth; i++) {
                out.putFloat(floats[i]);
            }
            out.putInt(slotWidth);
            for (int i = at + weightWidth; i < at + weightWidth + slotWidth; i++) {
                out.putFloat(floats[i]);
            }
            out.putLong(count).putLong(version).putLong(updatedAt);
            added++;
        }

        public byte[] toBytes() {
            if (added != rows) {
                throw new IllegalStateException(added + " changed rows written, " + rows + " announced");
            }
            return out.array();
        }
    }

    /** Hands every row of {@code value} to {@code sink}, in the order they were added; returns how many. */
    public static int read(byte[] value, RowSink sink) throws Exception {
        DataInputDeserializer in = new DataInputDeserializer(value);
        int format = in.readInt();
        if (format != FORMAT) {
            throw new IOException("changed rows of unknown format " + format + " (this build reads format " + FORMAT + ")");
        }
        int rows = in.readInt();
        for (int i = 0; i < rows; i++) {
            long key = in.readLong();
            sink.accept(key, EmbeddingRowSerializer.INSTANCE.deserialize(in));
        }
        return rows;
    }
}
