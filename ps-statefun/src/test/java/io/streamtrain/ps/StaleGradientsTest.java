package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

class StaleGradientsTest {
    @Test
    void aGradientIsScaledByOneOverOnePlusTheUpdatesItMissed() {
        float[] grad = {1, 1, 4, 8, 1};
        StaleGradients.damp(grad, 2, 2, 3);
        assertArrayEquals(new float[] {1, 1, 1, 2, 1}, grad, "only the row's own slice changes");
    }

    @Test
    void aFreshGradientIsAppliedAsItIs() {
        float[] grad = {3, 5};
        StaleGradients.damp(grad, 0, 2, 0);
        assertArrayEquals(new float[] {3, 5}, grad);
    }
}
