package io.streamtrain.export;

import io.streamtrain.contract.ModelInfo;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.ps.ChangedRows;
import io.streamtrain.ps.PsState;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

/**
 * Reads the parameter server's rows out of a checkpoint or savepoint with Flink's State Processor
 * API, row by row on a local Flink cluster: its RocksDB rows, each replaced by its newer copy where
 * the checkpoint also holds one among the PS's changed rows ({@link PsState#changedRows()}). Works
 * on any state format Flink restores; {@link CheckpointRows} takes it only for formats it cannot
 * read directly, and tests compare the two.
 */
final class StateProcessorRows {
    private StateProcessorRows() {}

    /** Streams every row of the checkpoint to {@code sink}, on one thread; returns how many there were. */
    static long read(Path checkpoint, ModelInfo info, Consumer<ExportedRow> sink) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        Duration ttl = info.rowTtlMs() > 0 ? Duration.ofMillis(info.rowTtlMs()) : null;
        SavepointReader savepoint = SavepointReader.read(env, ModelStorage.uri(checkpoint).toString(), new EmbeddedRocksDBStateBackend(true));
        Map<Long, ExportedRow> changed = changedRows(savepoint);
        long n = 0;
        try (CloseableIterator<ExportedRow> rows = savepoint
                .readKeyedState(OperatorIdentifier.forUid(PsState.PS_UID), new RowReader(ttl), Types.INT, TypeInformation.of(ExportedRow.class))
                .executeAndCollect("streamtrain-export")) {
            while (rows.hasNext()) {
                ExportedRow stored = rows.next();
                ExportedRow newer = changed.remove(FeatureKey.of(stored.field(), stored.id()));
                sink.accept(newer != null ? newer : stored);
                n++;
            }
        }
        for (ExportedRow onlyChanged : changed.values()) { // never written to RocksDB yet
            sink.accept(onlyChanged);
            n++;
        }
        return n;
    }

    /** The checkpoint's changed rows of every PS subtask, by row key (none in checkpoints of earlier builds). */
    private static Map<Long, ExportedRow> changedRows(SavepointReader savepoint) throws Exception {
        Map<Long, ExportedRow> changed = new HashMap<>();
        // Decoded in the job: a subtask's value can be megabytes, more than one collected record may be.
        try (CloseableIterator<ExportedRow> rows = savepoint
                .readUnionState(OperatorIdentifier.forUid(PsState.PS_UID), PsState.CHANGED_ROWS, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
                .flatMap(new ChangedRowsReader(), TypeInformation.of(ExportedRow.class))
                .executeAndCollect("streamtrain-export-changed-rows")) {
            while (rows.hasNext()) {
                ExportedRow row = rows.next();
                changed.put(FeatureKey.of(row.field(), row.id()), row);
            }
        }
        return changed;
    }

    /** Emits every row of one subtask's changed rows. */
    static final class ChangedRowsReader implements FlatMapFunction<byte[], ExportedRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(byte[] value, Collector<ExportedRow> out) throws Exception {
            ChangedRows.read(value, (key, row) -> out.collect(exported(key, row)));
        }
    }

    private static ExportedRow exported(long key, EmbeddingRow row) {
        return new ExportedRow(FeatureKey.field(key), FeatureKey.id(key), row.weights, row.count, row.updatedAt);
    }

    /**
     * Emits every row of one PS key group: its sparse rows, then a deep model's dense chunk rows
     * (field {@code FeatureKey.DENSE_FIELD}, id = chunk; see {@code DenseChunks}).
     */
    static final class RowReader extends KeyedStateReaderFunction<Integer, ExportedRow> {
        private static final long serialVersionUID = 1L;
        private final Duration ttl;
        private transient MapState<Long, EmbeddingRow> rows;
        private transient MapState<Long, EmbeddingRow> dense;

        RowReader(Duration ttl) {
            this.ttl = ttl;
        }

        @Override
        public void open(OpenContext openContext) {
            rows = getRuntimeContext().getMapState(PsState.rows(ttl));
            dense = getRuntimeContext().getMapState(PsState.denseRows());
        }

        @Override
        public void readKey(Integer keyGroupKey, Context ctx, Collector<ExportedRow> out) throws Exception {
            for (Map.Entry<Long, EmbeddingRow> e : rows.entries()) {
                out.collect(exported(e.getKey(), e.getValue()));
            }
            for (Map.Entry<Long, EmbeddingRow> e : dense.entries()) {
                out.collect(exported(e.getKey(), e.getValue()));
            }
        }
    }
}
