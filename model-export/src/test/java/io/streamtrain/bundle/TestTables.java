package io.streamtrain.bundle;

import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.PsState;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.util.SplittableRandom;
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
 * Test tables: a savepoint whose PS state holds {@code rows} rows with known, pseudo-random weights
 * (row i: {@link #key(long)}, {@link #weights(long, int)}) plus the bias row, written with the State
 * Processor API exactly as the job lays its state out, with a model.json beside it.
 */
public final class TestTables {
    public static final int MAX_PARALLELISM = 128;

    private TestTables() {}

    public static long key(long i) {
        return i < 0 ? FeatureKey.BIAS : FeatureKey.of((int) (i % 7), i * 7919 + 3);
    }

    public static float[] weights(long i, int width) {
        SplittableRandom r = new SplittableRandom(i * 31 + 5);
        float[] w = new float[width];
        for (int j = 0; j < width; j++) {
            w[j] = (float) (r.nextDouble() * 2 - 1);
        }
        return w;
    }

    public static ModelInfo info(String model, int dim) {
        return new ModelInfo("test", "test-topic", model, dim, "adagrad", 0, MAX_PARALLELISM);
    }

    /** Writes the savepoint into {@code dir} and its model.json beside it; row -1 is the bias. */
    public static Path write(Path dir, ModelInfo info, long rows) throws Exception {
        int width = io.streamtrain.model.ModelKind.parse(info.model()).rowWidth(info.dim());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        KeyGroups keyGroups = new KeyGroups(MAX_PARALLELISM);
        StateBootstrapTransformation<Long> ps = OperatorTransformation
                .bootstrapWith(env.fromSequence(-1, rows - 1))
                .keyBy(i -> keyGroups.keyOf(keyGroups.bucketOf(key(i))), Types.INT)
                .transform(new Writer(width));
        SavepointWriter.newSavepoint(env, new EmbeddedRocksDBStateBackend(true), MAX_PARALLELISM)
                .withOperator(OperatorIdentifier.forUid(PsState.PS_UID), ps)
                .write(dir.toUri().toString());
        env.execute("test-table");
        info.write(dir);
        return dir;
    }

    static final class Writer extends KeyedStateBootstrapFunction<Integer, Long> {
        private static final long serialVersionUID = 1L;
        private final int width;
        private transient MapState<Long, EmbeddingRow> rows;

        Writer(int width) {
            this.width = width;
        }

        @Override
        public void open(OpenContext openContext) {
            rows = getRuntimeContext().getMapState(PsState.rows(null));
        }

        @Override
        public void processElement(Long i, Context ctx) throws Exception {
            EmbeddingRow row = new EmbeddingRow(weights(i, width), new float[width]);
            row.count = i + 2;
            row.updatedAt = 1000 + i;
            rows.put(key(i), row);
        }
    }
}
