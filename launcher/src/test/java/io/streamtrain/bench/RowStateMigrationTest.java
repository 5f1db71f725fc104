package io.streamtrain.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.PsState;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows written by earlier builds, whose row state used Flink's POJO serializer, are read by this
 * build's {@code EmbeddingRowSerializer}: Flink migrates them on restore instead of refusing the
 * checkpoint.
 */
class RowStateMigrationTest {
    private static final int ROWS = 500;

    @Test
    void rowsOfThePojoSerializerAreReadWithEveryField(@TempDir Path dir) throws Exception {
        Path savepoint = dir.resolve("legacy");
        KeyGroups keyGroups = new KeyGroups(KeyGroups.DEFAULT_MAX_PARALLELISM);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        SavepointWriter.newSavepoint(env, new EmbeddedRocksDBStateBackend(true), KeyGroups.DEFAULT_MAX_PARALLELISM)
                .withOperator(OperatorIdentifier.forUid(PsState.PS_UID), OperatorTransformation
                        .bootstrapWith(env.fromSequence(0, ROWS - 1).map(i -> FeatureKey.of(1, i)).returns(Types.LONG))
                        .keyBy(rowKey -> keyGroups.keyOf(keyGroups.bucketOf(rowKey)), Types.INT)
                        .transform(new LegacyRowWriter()))
                .write(savepoint.toUri().toString());
        env.execute("legacy-rows");

        List<ExportedRow> rows = CheckpointRows.readAll(savepoint,
                new ModelInfo("legacy", "t", "fm", 2, "adagrad", 0, KeyGroups.DEFAULT_MAX_PARALLELISM));
        assertEquals(ROWS, rows.size());
        for (ExportedRow row : rows) {
            EmbeddingRow expected = LegacyRowWriter.row(row.id());
            assertArrayEquals(expected.weights, row.vector());
            assertEquals(expected.count, row.count());
            assertEquals(expected.updatedAt, row.updatedAt());
        }
    }

    /** Writes rows the way earlier builds declared the state: the POJO serializer. */
    static final class LegacyRowWriter extends KeyedStateBootstrapFunction<Integer, Long> {
        private static final long serialVersionUID = 1L;
        private transient MapState<Long, EmbeddingRow> rows;

        static EmbeddingRow row(long id) {
            EmbeddingRow row = new EmbeddingRow(new float[] {id, -id, 0.5f}, new float[] {1f, 2f, 3f});
            row.count = id * 3;
            row.version = id;
            row.updatedAt = 1_000_000L + id;
            return row;
        }

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext openContext) {
            rows = getRuntimeContext().getMapState(
                    new MapStateDescriptor<>("rows", Types.LONG, TypeInformation.of(EmbeddingRow.class)));
        }

        @Override
        public void processElement(Long rowKey, Context ctx) throws Exception {
            rows.put(rowKey, row(FeatureKey.id(rowKey)));
        }
    }
}
