package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.junit.jupiter.api.Test;

class TrainingJobSettingsTest {
    @Test
    void flushesNetworkBuffersWithinFiveMillisecondsUnlessTheUserChoseOtherwise() {
        assertEquals(Duration.ofMillis(5), TrainingJob.withRequiredSettings(new Configuration()).get(ExecutionOptions.BUFFER_TIMEOUT));

        Configuration chosen = new Configuration();
        chosen.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(50));
        assertEquals(Duration.ofMillis(50), TrainingJob.withRequiredSettings(chosen).get(ExecutionOptions.BUFFER_TIMEOUT));
    }

    @Test
    void checkpointsUnalignedUnlessTheUserChoseOtherwise() {
        assertTrue(TrainingJob.withRequiredSettings(new Configuration()).get(CheckpointingOptions.ENABLE_UNALIGNED));

        Configuration aligned = new Configuration();
        aligned.set(CheckpointingOptions.ENABLE_UNALIGNED, false);
        assertFalse(TrainingJob.withRequiredSettings(aligned).get(CheckpointingOptions.ENABLE_UNALIGNED));
    }

    @Test
    void restartsAreBoundedUnlessTheUserChoseAStrategy() {
        Configuration c = TrainingJob.withRequiredSettings(new Configuration());
        assertEquals("exponential-delay", c.get(RestartStrategyOptions.RESTART_STRATEGY));
        assertEquals(5, c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS));

        Configuration fewer = new Configuration();
        fewer.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS, 2);
        assertEquals(2, TrainingJob.withRequiredSettings(fewer).get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS));

        Configuration none = new Configuration();
        none.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        Configuration kept = TrainingJob.withRequiredSettings(none);
        assertEquals("none", kept.get(RestartStrategyOptions.RESTART_STRATEGY));
        assertFalse(kept.contains(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS));
    }
}
