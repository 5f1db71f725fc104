package io.streamtrain.bench;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.PsState;
import io.streamtrain.ps.optimizer.Optimizer;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Writes a savepoint whose parameter server already holds the rows (field f, id i) for
 * {@code f < fields, i < idsPerField}, initialised exactly as the PS would create them on first
 * sight, so a benchmark starts with millions of rows in state without training through them first.
 * Only the PS has state in it; the job's other operators start fresh from it.
 */
public final class SeedTable {
    private SeedTable() {}

    /**
     * @param maxParallelism the job's max parallelism (its key groups); must equal the job's
     * @return the number of rows written
     */
    public static long write(Path savepoint, int fields, long idsPerField, RowInitializer initializer,
                             OptimizerConfig optimizer, int maxParallelism, int parallelism) throws Exception {
        // Streaming mode: in batch mode the bootstrap task stopped part-way from ~1M rows on and
        // left the writer blocked for good (Flink 2.2's BootstrapStreamTask ends at the first
        // element that is not a record, and swallows its own errors).
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        long rows = fields * idsPerField;
        KeyGroups keyGroups = new KeyGroups(maxParallelism);
        StateBootstrapTransformation<Long> ps = OperatorTransformation
                .bootstrapWith(env.fromSequence(0, rows - 1)
                        .map(i -> FeatureKey.of((int) (i / idsPerField), i % idsPerField)).returns(Types.LONG))
                .keyBy(rowKey -> keyGroups.keyOf(keyGroups.bucketOf(rowKey)), Types.INT)
                .transform(new RowWriter(initializer, optimizer));
        SavepointWriter.newSavepoint(env, new EmbeddedRocksDBStateBackend(true), maxParallelism)
                .withOperator(OperatorIdentifier.forUid(PsState.PS_UID), ps)
                .write(savepoint.toUri().toString());
        env.execute("streamtrain-seed-table");
        return rows;
    }

    /** Puts one freshly initialised row per row key into the PS's row state. */
    static final class RowWriter extends KeyedStateBootstrapFunction<Integer, Long> {
        private static final long serialVersionUID = 1L;
        private final RowInitializer initializer;
        private final OptimizerConfig optimizerConfig;
        private transient Optimizer optimizer;
        private transient MapState<Long, EmbeddingRow> rows;

        RowWriter(RowInitializer initializer, OptimizerConfig optimizerConfig) {
            this.initializer = initializer;
            this.optimizerConfig = optimizerConfig;
        }

        @Override
        public void open(OpenContext openContext) {
            optimizer = optimizerConfig.create();
            rows = getRuntimeContext().getMapState(PsState.rows(null));
        }

        @Override
        public void processElement(Long rowKey, Context ctx) throws Exception {
            rows.put(rowKey, initializer.newRow(rowKey, optimizer));
        }
    }
}
