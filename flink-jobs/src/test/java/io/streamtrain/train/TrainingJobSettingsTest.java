package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
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
}
