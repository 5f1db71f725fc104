package io.streamtrain.ps;

/**
 * Staleness-aware step (Zhang et al., "Staleness-aware Async-SGD", IJCAI 2016): a gradient
 * computed from a row that has since taken {@code missed} other updates is applied scaled by
 * 1 / (1 + missed). Without it, a backlog lets many batches push the same stale direction and hot
 * rows overshoot.
 */
final class StaleGradients {
    private StaleGradients() {}

    /** Scales {@code grad[off .. off + width)} in place for a row that took {@code missed} updates since the pull. */
    static void damp(float[] grad, int off, int width, long missed) {
        if (missed > 0) {
            float scale = 1f / (1 + missed);
            for (int j = off; j < off + width; j++) {
                grad[j] *= scale;
            }
        }
    }
}
