package io.streamtrain.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seeded savepoint holds every (field, id) row, initialised as the PS initialises a row it first sees. */
class SeedTableTest {
    @Test
    void everyRowIsWrittenOnceWithThePsInitialWeights(@TempDir Path dir) throws Exception {
        RowInitializer init = new RowInitializer(5, 0.05, 17);
        Path savepoint = dir.resolve("seed");
        long written = SeedTable.write(savepoint, 3, 1000, init, OptimizerConfig.from(new Configuration()),
                KeyGroups.DEFAULT_MAX_PARALLELISM, 2);
        assertEquals(3000, written);

        List<ExportedRow> rows = CheckpointRows.readAll(savepoint,
                new ModelInfo("seed", "t", "fm", 4, "adagrad", 0, KeyGroups.DEFAULT_MAX_PARALLELISM));
        assertEquals(3000, rows.size());
        Set<String> keys = new HashSet<>();
        for (ExportedRow row : rows) {
            keys.add(row.field() + ":" + row.id());
            assertArrayEquals(init.initialWeights(FeatureKey.of(row.field(), row.id())), row.vector());
            assertEquals(0, row.count());
        }
        assertEquals(3000, keys.size(), "no row twice");
    }
}
