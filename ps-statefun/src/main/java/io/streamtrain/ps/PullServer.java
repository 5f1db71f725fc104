package io.streamtrain.ps;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import org.apache.flink.metrics.Counter;

/**
 * Answers a pull with the current weights and versions of its rows. A feature seen for the first
 * time gets its deterministic first row if admission lets it (kept in the cache for the push that
 * follows); a feature not admitted yet contributes zeros and version 0.
 */
final class PullServer {
    private final RowStore rows;
    private final Admission admission;
    private final int width;
    private final Counter rowsPulled;

    PullServer(RowStore rows, Admission admission, int width, Counter rowsPulled) {
        this.rows = rows;
        this.admission = admission;
        this.width = width;
        this.rowsPulled = rowsPulled;
    }

    /** The rows of {@code pull} at {@code now}, stamped with it: the push measures its staleness from there. */
    PulledRows answer(PullRequest pull, long now) throws Exception {
        long[] keys = pull.keys;
        float[] weights = new float[keys.length * width];
        long[] versions = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            long version = rows.readWeights(keys[i], now, weights, i * width);
            if (version >= 0) {
                versions[i] = version;
            } else if (admission.onFirstSight(keys[i])) {
                System.arraycopy(rows.create(keys[i], now).weights, 0, weights, i * width, width);
            }
        }
        rowsPulled.inc(keys.length);
        return new PulledRows(pull.keyGroup, pull.sourcePartition, pull.batchSeq, now, keys, weights, versions);
    }
}
