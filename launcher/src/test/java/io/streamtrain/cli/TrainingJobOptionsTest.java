package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.ps.optimizer.DenseOptimizerKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TrainingOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** train and backfill read the model's options the same way, so a backfill and its streaming continuation agree. */
class TrainingJobOptionsTest {
    private static final List<String> MODEL = List.of("--bootstrap", "10.0.0.1:9092", "--topic", "clicks", "--name", "ctr",
            "--model", "lr", "--dim", "4", "--optimizer", "ftrl", "--learning-rate", "0.05", "--batch-size", "256",
            "--max-wait", "300ms", "--min-frequency", "3", "--row-ttl", "7d", "--checkpoint-interval", "5s",
            "--model-updates-topic", "clicks.updates", "-D", "streamtrain.train.max-batches-in-flight=2");

    @Test
    void trainAndBackfillBuildTheSameJobConfiguration() {
        TrainCommand train = new TrainCommand();
        new CommandLine(train).parseArgs(MODEL.toArray(String[]::new));
        BackfillCommand backfill = new BackfillCommand();
        new CommandLine(backfill).parseArgs(concat(MODEL, "--out-savepoint", "/tmp/sp"));

        Configuration t = train.settings().conf();
        Configuration b = backfill.settings().training().conf();
        for (var option : List.of(TrainingOptions.BOOTSTRAP, TrainingOptions.TOPIC, TrainingOptions.NAME, TrainingOptions.MODEL,
                TrainingOptions.MODEL_UPDATES_TOPIC, PsOptions.OPTIMIZER)) {
            assertEquals(t.get(option), b.get(option), option.key());
        }
        assertEquals(ModelKind.LR, b.get(TrainingOptions.MODEL));
        assertEquals("clicks.updates", b.get(TrainingOptions.MODEL_UPDATES_TOPIC));
        assertEquals(4, b.get(PsOptions.DIM));
        assertEquals(256, b.get(TrainingOptions.BATCH_SIZE));
        assertEquals(3, b.get(PsOptions.MIN_FREQUENCY));
        assertEquals(2, b.get(TrainingOptions.MAX_BATCHES_IN_FLIGHT), "-D keys reach the job");
        assertEquals(t.get(TrainingOptions.BATCH_SIZE), b.get(TrainingOptions.BATCH_SIZE));
        assertEquals(t.get(TrainingOptions.MAX_BATCHES_IN_FLIGHT), b.get(TrainingOptions.MAX_BATCHES_IN_FLIGHT));
        assertEquals(t.get(PsOptions.DIM), b.get(PsOptions.DIM));
        assertEquals(t.get(PsOptions.MIN_FREQUENCY), b.get(PsOptions.MIN_FREQUENCY));
        assertEquals(t.get(PsOptions.LEARNING_RATE), b.get(PsOptions.LEARNING_RATE));
        assertEquals(Duration.ofDays(7), b.get(PsOptions.ROW_TTL));
        assertEquals(t.get(TrainingOptions.MAX_WAIT), b.get(TrainingOptions.MAX_WAIT));
        assertEquals(Duration.ofSeconds(5), backfill.settings().training().checkpointInterval());
        assertEquals(train.settings().checkpointInterval(), backfill.settings().training().checkpointInterval());
    }

    @Test
    void theDeepModelFlagsSetTheModelsShapeAndDenseOptimizer() {
        TrainCommand train = new TrainCommand();
        new CommandLine(train).parseArgs("--topic", "clicks", "--model", "dcn", "--dim", "16", "--fields", "22",
                "--hidden", "64,32", "--cross-layers", "3", "--dense-optimizer", "sgd", "--dense-learning-rate", "0.01");
        Configuration conf = train.settings().conf();
        assertEquals(new ModelShape(ModelKind.DCN, 16, 22, List.of(64, 32), 3), TrainingOptions.shape(conf));
        assertEquals(DenseOptimizerKind.SGD, conf.get(PsOptions.DENSE_OPTIMIZER));
        assertEquals(0.01, conf.get(PsOptions.DENSE_LEARNING_RATE));
    }

    @Test
    void crossLayersForAModelWithoutThemAreRefused() {
        TrainCommand train = new TrainCommand();
        new CommandLine(train).parseArgs("--topic", "clicks", "--model", "deepfm", "--cross-layers", "2");
        Configuration conf = train.settings().conf();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrainingOptions.shape(conf));
        assertTrue(e.getMessage().contains("--cross-layers"), e.getMessage());
    }

    private static String[] concat(List<String> a, String... more) {
        List<String> all = new ArrayList<>(a);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
