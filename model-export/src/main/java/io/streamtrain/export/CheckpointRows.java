package io.streamtrain.export;

import io.streamtrain.ps.PsState;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
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
 * Reads the parameter server's rows out of a retained checkpoint or savepoint with Flink's State
 * Processor API. It only reads files, so it works while the training job keeps running.
 */
public final class CheckpointRows {
    private CheckpointRows() {}

    /** Streams every row of the checkpoint to {@code sink}; returns how many there were. */
    public static long read(Path checkpoint, ModelInfo info, Consumer<ExportedRow> sink) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        Duration ttl = info.rowTtlMs() > 0 ? Duration.ofMillis(info.rowTtlMs()) : null;
        SavepointReader savepoint = SavepointReader.read(env, checkpoint.toUri().toString(), new EmbeddedRocksDBStateBackend(true));
        long n = 0;
        try (CloseableIterator<ExportedRow> rows = savepoint
                .readKeyedState(OperatorIdentifier.forUid(PsState.PS_UID), new RowReader(ttl), Types.INT, TypeInformation.of(ExportedRow.class))
                .executeAndCollect("streamtrain-export")) {
            while (rows.hasNext()) {
                sink.accept(rows.next());
                n++;
            }
        }
        return n;
    }

    public static List<ExportedRow> readAll(Path checkpoint, ModelInfo info) throws Exception {
        List<ExportedRow> rows = new ArrayList<>();
        read(checkpoint, info, rows::add);
        return rows;
    }

    /** Emits every row of one PS key group. */
    static final class RowReader extends KeyedStateReaderFunction<Integer, ExportedRow> {
        private static final long serialVersionUID = 1L;
        private final Duration ttl;
        private transient MapState<Long, EmbeddingRow> rows;

        RowReader(Duration ttl) {
            this.ttl = ttl;
        }

        @Override
        public void open(OpenContext openContext) {
            rows = getRuntimeContext().getMapState(PsState.rows(ttl));
        }

        @Override
        public void readKey(Integer keyGroupKey, Context ctx, Collector<ExportedRow> out) throws Exception {
            for (Map.Entry<Long, EmbeddingRow> e : rows.entries()) {
                long key = e.getKey();
                EmbeddingRow row = e.getValue();
                out.collect(new ExportedRow(FeatureKey.field(key), FeatureKey.id(key), row.weights, row.count, row.updatedAt));
            }
        }
    }
}
