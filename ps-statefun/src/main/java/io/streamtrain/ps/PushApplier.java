package io.streamtrain.ps;

import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.schema.FeatureKey;
import org.apache.flink.api.common.state.MapState;

/**
 * Applies a push's gradients to its rows, each batch at most once: a push whose (source partition,
 * batch sequence) this key group applied already is a replay of the at-least-once feedback and is
 * dropped ({@link AppliedBatches}). A row missing so far is created once admission lets it; each
 * gradient is damped by the updates its row took since the pull ({@link StaleGradients}). A deep
 * model's dense chunk rows go to {@link DenseRows}, through the same duplicate check, their steps
 * scaled for staleness there.
 */
final class PushApplier {
    /** Takes each row a push changed (its weights: the row's own array, copy to keep) with its new version. */
    @FunctionalInterface
    interface ChangedRowSink {
        ChangedRowSink NONE = (key, weights, version) -> {};

        void changed(long key, float[] weights, long version);
    }

    private final RowStore rows;
    private final DenseRows dense;
    private final Admission admission;
    private final Optimizer optimizer;
    private final int width;
    private final MapState<Integer, Long> appliedState;
    private final AppliedBatches applied;
    private final KeyGroupScope scope;
    private final PsMetrics metrics;

    /** @param appliedState the last batch applied per source partition ({@link PsState#appliedBatches}), under the current key group */
    PushApplier(RowStore rows, DenseRows dense, Admission admission, Optimizer optimizer, int width,
                MapState<Integer, Long> appliedState, KeyGroupScope scope, PsMetrics metrics) {
        this.rows = rows;
        this.dense = dense;
        this.admission = admission;
        this.optimizer = optimizer;
        this.width = width;
        this.appliedState = appliedState;
        this.applied = new AppliedBatches(appliedState::get);
        this.scope = scope;
        this.metrics = metrics;
    }

    /** Applies {@code push} at {@code now}, handing each changed row to {@code changedRows}; false if it was a replay, dropped. */
    boolean apply(Push push, long now, ChangedRowSink changedRows) throws Exception {
        if (applied.applied(push.keyGroup, push.sourcePartition, push.batchSeq)) {
            metrics.duplicatePushes.inc();
            return false;
        }
        long[] keys = push.keys;
        int[] occurrences = push.occurrences;
        float[] grad = push.gradients;
        // at: where key i's gradient starts (rows are laid out one after the other, dense chunks wider)
        for (int i = 0, at = 0; i < keys.length; at += DenseChunks.rowWidth(keys[i], width), i++) {
            long key = keys[i];
            int occ = occurrences[i];
            if (FeatureKey.isDense(key)) {
                EmbeddingRow chunk = dense.apply(key, grad, at, occ, versionAt(push, i), now);
                changedRows.changed(key, chunk.weights, chunk.version);
                continue;
            }
            EmbeddingRow row = rows.current(key, now);
            if (row == null) {
                long seenBefore = admission.admit(key, occ);
                if (seenBefore == Admission.PENDING) {
                    continue;
                }
                row = rows.create(key, now);
                row.count = seenBefore;
            }
            if (row.version == 0) {
                metrics.rowsAdmitted.inc(); // its first update: made just now, or by its pull and cached
            }
            StaleGradients.damp(grad, at, width, row.version - versionAt(push, i));
            optimizer.apply(row.weights, row.slots, grad, at, occ);
            row.version++;
            row.count += occ;
            row.updatedAt = now;
            rows.changed(key, row);
            changedRows.changed(key, row.weights, row.version);
        }
        rows.endPush();
        applied.advance(push.keyGroup, push.sourcePartition, push.batchSeq);
        metrics.pushesApplied.inc();
        return true;
    }

    /** Writes the last batch applied per key group and source partition, and the dense chunks changed, to RocksDB: before each checkpoint barrier. */
    void writeBackBeforeBarrier() throws Exception {
        dense.writeBack();
        applied.writeBack((group, partition, seq) -> scope.run(group, () -> appliedState.put(partition, seq)));
    }

    private static long versionAt(Push push, int i) {
        return push.versions.length > i ? push.versions[i] : 0;
    }
}
