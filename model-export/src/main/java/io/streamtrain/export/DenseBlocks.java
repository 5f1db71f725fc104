package io.streamtrain.export;

import io.streamtrain.model.deep.DenseBlock;
import io.streamtrain.model.deep.DenseLayout;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.schema.FeatureKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A deep model's dense parameters put back together from the PS's chunk rows
 * ({@link DenseChunks}): the flat array in {@link DenseLayout} order, and how many examples trained
 * each chunk. A chunk the checkpoint lacks (a model that never trained) reads as zeros with count 0.
 */
public final class DenseBlocks {
    private final DenseLayout layout;
    private final float[] values;
    private final long[] chunkCounts;

    public DenseBlocks(DenseLayout layout) {
        this.layout = layout;
        this.values = new float[layout.size()];
        this.chunkCounts = new long[DenseChunks.count(layout.size())];
    }

    /** Takes {@code row} if it is a dense chunk row and returns true; false for any other row. */
    public boolean take(ExportedRow row) {
        long key = FeatureKey.of(row.field(), row.id());
        if (!FeatureKey.isDense(key)) {
            return false;
        }
        int chunk = DenseChunks.chunkOf(key);
        if (chunk < chunkCounts.length) {
            copyInto(chunk, row.vector(), values);
            chunkCounts[chunk] = row.count();
        }
        return true;
    }

    /** Copies chunk {@code chunk}'s floats into their place in {@code flat} (its padding is dropped). */
    public static void copyInto(int chunk, float[] chunkValues, float[] flat) {
        int from = chunk * DenseChunks.WIDTH;
        if (from < flat.length) {
            System.arraycopy(chunkValues, 0, flat, from, Math.min(DenseChunks.WIDTH, flat.length - from));
        }
    }

    /** The flat parameters, in layout order. */
    public float[] values() {
        return values;
    }

    /** One named block with its values and the examples that trained it. */
    public record Block(String name, long count, float[] values) {}

    /**
     * Every block of the layout; a block's count is the smallest of its chunks' (every batch
     * updates every chunk, so they agree unless a chunk was never trained).
     */
    public List<Block> blocks() {
        List<Block> blocks = new ArrayList<>();
        for (DenseBlock b : layout.blocks()) {
            long count = Long.MAX_VALUE;
            for (int c = b.offset() / DenseChunks.WIDTH; c <= (b.offset() + b.size() - 1) / DenseChunks.WIDTH; c++) {
                count = Math.min(count, chunkCounts[c]);
            }
            blocks.add(new Block(b.name(), count, Arrays.copyOfRange(values, b.offset(), b.offset() + b.size())));
        }
        return blocks;
    }
}
