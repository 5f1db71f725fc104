package io.streamtrain.train.worker;

import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.train.batch.MiniBatch;
import java.util.ArrayList;
import java.util.List;

/** A batch waiting at the worker for its pulled rows (they arrive from many PS subtasks). */
final class BatchAssembly {
    MiniBatch batch;
    final List<PulledRows> rows = new ArrayList<>();

    boolean complete() {
        return batch != null && rows.size() == batch.pulls;
    }
}
