package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.model.ModelKind;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.junit.jupiter.api.Test;

class TrainingJobSettingsTest {
    @Test
    void flushesNetworkBuffersWithinFiveMillisecondsUnlessTheUserChoseOtherwise() {
        assertEquals(Duration.ofMillis(5), RequiredFlinkSettings.apply(new Configuration()).get(ExecutionOptions.BUFFER_TIMEOUT));

        Configuration chosen = new Configuration();
        chosen.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(50));
        assertEquals(Duration.ofMillis(50), RequiredFlinkSettings.apply(chosen).get(ExecutionOptions.BUFFER_TIMEOUT));
    }

    @Test
    void checkpointsUnalignedUnlessTheUserChoseOtherwise() {
        assertTrue(RequiredFlinkSettings.apply(new Configuration()).get(CheckpointingOptions.ENABLE_UNALIGNED));

        Configuration aligned = new Configuration();
        aligned.set(CheckpointingOptions.ENABLE_UNALIGNED, false);
        assertFalse(RequiredFlinkSettings.apply(aligned).get(CheckpointingOptions.ENABLE_UNALIGNED));
    }

    @Test
    void restartsAreBoundedUnlessTheUserChoseAStrategy() {
        Configuration c = RequiredFlinkSettings.apply(new Configuration());
        assertEquals("exponential-delay", c.get(RestartStrategyOptions.RESTART_STRATEGY));
        assertEquals(5, c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS));

        Configuration fewer = new Configuration();
        fewer.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS, 2);
        assertEquals(2, RequiredFlinkSettings.apply(fewer).get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS));

        Configuration none = new Configuration();
        none.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        Configuration kept = RequiredFlinkSettings.apply(none);
        assertEquals("none", kept.get(RestartStrategyOptions.RESTART_STRATEGY));
        assertFalse(kept.contains(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS));
    }

    @Test
    void aDeepModelKeepsOneBatchInFlightUnlessTheUserChoseOtherwise() {
        Configuration fm = new Configuration();
        fm.set(TrainingOptions.MODEL, ModelKind.FM);
        assertEquals(2, TrainingOptions.maxBatchesInFlight(fm));

        Configuration deepfm = new Configuration();
        deepfm.set(TrainingOptions.MODEL, ModelKind.DEEPFM);
        assertEquals(1, TrainingOptions.maxBatchesInFlight(deepfm));

        deepfm.set(TrainingOptions.MAX_BATCHES_IN_FLIGHT, 2);
        assertEquals(2, TrainingOptions.maxBatchesInFlight(deepfm));
    }
}
