package io.streamtrain.bundle;

import io.streamtrain.model.ModelShape;
import io.streamtrain.ps.row.DenseChunks;
import java.util.List;
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
 * Processor API exactly as the job lays its state out, with a model.json beside it. A deep model's
 * dense parameters are there too, as the PS keeps them: chunk rows ({@link DenseChunks}) of the
 * layout's initial values (seed {@link #DENSE_SEED}) in the dense rows' state.
 */
public final class TestTables {
    public static final int MAX_PARALLELISM = 128;
    public static final long DENSE_SEED = 11;
    /** Fields of the deep test models: TestTables' keys use fields 0..6, and field 11 stays wide only. */
    public static final int DEEP_FIELDS = 7;

    private TestTables() {}

    /** Row i's key: i = -1 is the bias, i < -1 dense chunk -2 - i. */
    public static long key(long i) {
        if (i < -1) {
            return DenseChunks.key((int) (-2 - i));
        }
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

    /** A deep model over {@link #DEEP_FIELDS} fields with a small MLP (and two cross layers for dcn). */
    public static ModelInfo deepInfo(String model, int dim) {
        return new ModelInfo("test", "test-topic", model, dim, "adagrad", 0, MAX_PARALLELISM, DEEP_FIELDS, List.of(8, 4),
                model.equals("dcn") ? 2 : 0);
    }

    /** Writes the savepoint into {@code dir} and its model.json beside it; row -1 is the bias. */
    public static Path write(Path dir, ModelInfo info, long rows) throws Exception {
        ModelShape shape = info.shape();
        int chunks = DenseChunks.count(shape.denseLayout().size());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        KeyGroups keyGroups = new KeyGroups(MAX_PARALLELISM);
        StateBootstrapTransformation<Long> ps = OperatorTransformation
                .bootstrapWith(env.fromSequence(-1 - chunks, rows - 1))
                .keyBy(i -> keyGroups.keyOf(keyGroups.bucketOf(key(i))), Types.INT)
                .transform(new Writer(shape));
        SavepointWriter.newSavepoint(env, new EmbeddedRocksDBStateBackend(true), MAX_PARALLELISM)
                .withOperator(OperatorIdentifier.forUid(PsState.PS_UID), ps)
                .write(dir.toUri().toString());
        env.execute("test-table");
        info.write(dir);
        return dir;
    }

    static final class Writer extends KeyedStateBootstrapFunction<Integer, Long> {
        private static final long serialVersionUID = 1L;
        private final ModelShape shape;
        private transient MapState<Long, EmbeddingRow> rows;
        private transient MapState<Long, EmbeddingRow> dense;

        Writer(ModelShape shape) {
            this.shape = shape;
        }

        @Override
        public void open(OpenContext openContext) {
            rows = getRuntimeContext().getMapState(PsState.rows(null));
            dense = getRuntimeContext().getMapState(PsState.denseRows());
        }

        @Override
        public void processElement(Long i, Context ctx) throws Exception {
            if (i < -1) {
                float[] values = new float[DenseChunks.WIDTH];
                shape.denseLayout().initialValues(DENSE_SEED, (int) (-2 - i) * DenseChunks.WIDTH, values);
                EmbeddingRow chunk = new EmbeddingRow(values, new float[DenseChunks.WIDTH]);
                chunk.count = 5000;
                dense.put(key(i), chunk);
                return;
            }
            int width = shape.rowWidth();
            EmbeddingRow row = new EmbeddingRow(weights(i, width), new float[width]);
            row.count = i + 2;
            row.updatedAt = 1000 + i;
            rows.put(key(i), row);
        }
    }
}
