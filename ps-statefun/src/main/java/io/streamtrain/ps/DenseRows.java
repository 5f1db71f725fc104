package io.streamtrain.ps;

import io.streamtrain.ps.optimizer.DenseOptimizerConfig;
import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.ps.row.DenseParameters;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.EmbeddingRowSerializer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.state.MapState;

/**
 * A PS subtask's dense chunk rows: on the heap, read from their keyed state
 * ({@link PsState#denseRows}) on first use after a start or restore and written back before each
 * checkpoint barrier, like the last batches applied ({@link AppliedBatches}). Every batch updates
 * every chunk, so writing them per push would put the whole tower through RocksDB each batch; once
 * per checkpoint, the checkpoint still holds exactly what a write per push would have left.
 * No admission (a chunk exists from its first pull). A batch's step is scaled down if its chunk
 * took more updates since the pull than the chunk's recent batches did on average
 * ({@link #usualMissed}), by how much more ({@link DenseOptimizerConfig#stepScale}); its whole
 * gradient still reaches the optimizer's moments. The gradient itself is not damped as the
 * sparse rows' are, since Adam's step does not depend on the gradient's scale.
 */
final class DenseRows {
    private final MapState<Long, EmbeddingRow> stored;
    private final MapState<Long, Double> storedUsualMissed;
    private final DenseParameters parameters;
    private final DenseOptimizerConfig config;
    private final Optimizer optimizer;
    private final KeyGroupScope scope;
    private final Map<Long, EmbeddingRow> live = new HashMap<>();
    private final Set<Long> changed = new HashSet<>();
    /**
     * Per chunk, the updates its recent batches missed between pull and push (a moving average over
     * about {@link #USUAL_WINDOW} batches): the job's steady-state staleness, which the dense learning
     * rate is set for. Written back with the chunks ({@link PsState#denseUsualMissed}): a recovery
     * replays the feedback with the averages the checkpoint had, so its steps equal the first run's.
     */
    private final Map<Long, Double> usualMissed = new HashMap<>();
    private static final double USUAL_WINDOW = 16;

    /**
     * @param stored the chunk rows' state, under the current key group
     * @param storedUsualMissed the chunks' averages of missed updates, under the current key group
     */
    DenseRows(MapState<Long, EmbeddingRow> stored, MapState<Long, Double> storedUsualMissed, DenseParameters parameters,
              KeyGroupScope scope) {
        this.stored = stored;
        this.storedUsualMissed = storedUsualMissed;
        this.parameters = parameters;
        this.config = parameters.optimizer();
        this.optimizer = config == null ? null : config.create();
        this.scope = scope;
    }

    /** {@code key}'s chunk row, under its key group (the current element's): read, or created with its first values. */
    EmbeddingRow row(long key) throws Exception {
        EmbeddingRow row = live.get(key);
        if (row == null) {
            if (optimizer == null) {
                throw new IllegalStateException("dense chunk " + DenseChunks.chunkOf(key) + " asked of a model without dense parameters");
            }
            row = stored.get(key);
            if (row == null) {
                row = parameters.newRow(DenseChunks.chunkOf(key), optimizer);
            }
            Double usual = storedUsualMissed.get(key);
            if (usual != null) {
                usualMissed.put(key, usual);
            }
            live.put(key, row);
        }
        return row;
    }

    /**
     * Applies one batch's gradient {@code grad[off .. off + WIDTH)} for {@code occurrences} examples
     * to {@code key}'s chunk, pulled at version {@code pulledVersion}.
     */
    EmbeddingRow apply(long key, float[] grad, int off, int occurrences, long pulledVersion, long now) throws Exception {
        EmbeddingRow row = row(key);
        long missed = row.version - pulledVersion;
        double usual = usualMissed.getOrDefault(key, (double) missed);
        optimizer.apply(row.weights, row.slots, grad, off, occurrences, config.stepScale(missed, usual));
        usualMissed.put(key, usual + (missed - usual) / USUAL_WINDOW);
        row.version++;
        row.count += occurrences;
        row.updatedAt = now;
        changed.add(key);
        return row;
    }

    /** Writes the chunks changed since the last write-back to their key groups' state: before each barrier and at the end. */
    void writeBack() throws Exception {
        for (long key : changed) {
            EmbeddingRow copy = EmbeddingRowSerializer.INSTANCE.copy(live.get(key)); // the heap keeps changing its own
            Double usual = usualMissed.get(key);
            scope.run(scope.keyGroups().bucketOf(key), () -> {
                stored.put(key, copy);
                if (usual != null) {
                    storedUsualMissed.put(key, usual);
                }
            });
        }
        changed.clear();
    }
}
