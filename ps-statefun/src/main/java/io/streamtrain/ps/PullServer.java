package io.streamtrain.ps;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.schema.FeatureKey;
import org.apache.flink.metrics.Counter;

/**
 * Answers a pull with the current weights and versions of its rows. A feature seen for the first
 * time gets its deterministic first row if admission lets it (kept in the cache for the push that
 * follows); a feature not admitted yet contributes zeros and version 0. A deep model's dense
 * chunk rows ({@link DenseChunks}) come {@link DenseChunks#WIDTH} floats each, in the keys' order.
 */
final class PullServer {
    private final RowStore rows;
    private final DenseRows dense;
    private final Admission admission;
    private final int width;
    private final Counter rowsPulled;

    PullServer(RowStore rows, DenseRows dense, Admission admission, int width, Counter rowsPulled) {
        this.rows = rows;
        this.dense = dense;
        this.admission = admission;
        this.width = width;
        this.rowsPulled = rowsPulled;
    }

    /** The rows of {@code pull} at {@code now}, stamped with it: the push measures its staleness from there. */
    PulledRows answer(PullRequest pull, long now) throws Exception {
        long[] keys = pull.keys;
        float[] weights = new float[DenseChunks.floats(keys, width)];
        long[] versions = new long[keys.length];
        int at = 0;
        for (int i = 0; i < keys.length; i++) {
            if (FeatureKey.isDense(keys[i])) {
                var chunk = dense.row(keys[i]);
                System.arraycopy(chunk.weights, 0, weights, at, DenseChunks.WIDTH);
                versions[i] = chunk.version;
                at += DenseChunks.WIDTH;
                continue;
            }
            long version = rows.readWeights(keys[i], now, weights, at);
            if (version >= 0) {
                versions[i] = version;
            } else if (admission.onFirstSight(keys[i])) {
                System.arraycopy(rows.create(keys[i], now).weights, 0, weights, at, width);
            }
            at += width;
        }
        rowsPulled.inc(keys.length);
        return new PulledRows(pull.keyGroup, pull.sourcePartition, pull.batchSeq, now, keys, weights, versions);
    }
}
