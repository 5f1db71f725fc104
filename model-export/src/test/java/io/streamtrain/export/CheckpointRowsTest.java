package io.streamtrain.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.ps.ChangedRows;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.PsState;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.ps.row.EmbeddingRow;
import io.streamtrain.schema.FeatureKey;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Export's direct read of state files ({@link CheckpointRows}) returns exactly what the State
 * Processor API returns, on checkpoints of a real job on a MiniCluster that lays out its state as
 * the PS does (sparse rows with TTL, dense chunk rows, changed rows in union operator state) and
 * keeps updating and deleting rows, so that its incremental checkpoints hold several versions of a
 * key across SST files and deletions; then on the checkpoint of the same job restored at another
 * parallelism (rescaled: databases clipped by key group); and on a canonical savepoint.
 */
class CheckpointRowsTest {
    private static final int MAX_PARALLELISM = TestTables.MAX_PARALLELISM;
    private static final ModelInfo DEEP = TestTables.deepInfo("deepfm", 3);
    /** The job's rows have a TTL, as a model trained with --row-ttl: each value is wrapped with its access time. */
    private static final ModelInfo INFO = new ModelInfo(DEEP.name(), DEEP.topic(), DEEP.model(), DEEP.dim(), DEEP.optimizer(),
            Duration.ofDays(365).toMillis(), DEEP.maxParallelism(), DEEP.fields(), DEEP.hidden(), DEEP.crossLayers());
    private static final int WIDTH = INFO.shape().rowWidth();

    @TempDir
    static Path dir;
    static Path incremental;
    static Path rescaled;

    @BeforeAll
    static void runJob() throws Exception {
        incremental = run(dir.resolve("first"), 2, null, 0);
        rescaled = run(dir.resolve("rescaled"), 3, incremental, 1);
    }

    @Test
    void anIncrementalCheckpointAfterUpdatesAndDeletesReadsAsTheStateProcessorApiReadsIt() throws Exception {
        long sstFiles = PsCheckpoint.load(incremental).keyed().stream()
                .flatMap(h -> ((IncrementalRemoteKeyedStateHandle) h).getSharedState().stream())
                .filter(f -> f.getLocalPath().endsWith(".sst")).count();
        assertTrue(sstFiles > 2, "the subtasks' rows lie in several SST files, versions of a key across them: " + sstFiles);
        assertSameRows(incremental, INFO);
    }

    @Test
    void aCheckpointOfTheJobRescaledReadsAsTheStateProcessorApiReadsIt() throws Exception {
        assertSameRows(rescaled, INFO);
    }

    @Test
    void aCanonicalSavepointReadsAsTheStateProcessorApiReadsIt() throws Exception {
        Path savepoint = TestTables.write(dir.resolve("canonical"), DEEP, 5000);
        assertSameRows(savepoint, DEEP);
    }

    @Test
    void theBundleOfAnIncrementalCheckpointHoldsEveryRow() throws Exception {
        Map<Long, ExportedRow> expected = byKey(readThroughStateProcessorApi(rescaled, INFO));
        ModelCard card = BundleWriter.write(rescaled, INFO, ModelCard.FeatureMapping.of(null, 18), dir.resolve("bundle"),
                new PrintStream(OutputStream.nullOutputStream()), Long.MAX_VALUE);
        assertEquals(expected.size() - (expected.containsKey(FeatureKey.BIAS) ? 1 : 0), card.contents().rows());
        try (Bundle bundle = Bundle.open(dir.resolve("bundle"))) {
            bundle.verify(); // the row count and the order-free checksum over every row
            for (Map.Entry<Long, ExportedRow> e : expected.entrySet()) {
                if (e.getKey() != FeatureKey.BIAS && !FeatureKey.isDense(e.getKey())) {
                    assertTrue(Arrays.equals(e.getValue().vector(), bundle.rowOrNull(e.getKey())), "row " + e.getKey());
                }
            }
        }
    }

    private static void assertSameRows(Path checkpoint, ModelInfo info) throws Exception {
        List<ExportedRow> reference = readThroughStateProcessorApi(checkpoint, info);
        List<ExportedRow> direct = CheckpointRows.readAll(checkpoint, info);
        assertTrue(reference.size() > 1000, "a test of substance: " + reference.size() + " rows");
        Map<Long, ExportedRow> expected = byKey(reference);
        Map<Long, ExportedRow> actual = byKey(direct);
        assertEquals(reference.size(), expected.size(), "the State Processor API read each row once");
        assertEquals(direct.size(), actual.size(), "the direct read read each row once");
        assertEquals(expected.keySet(), actual.keySet());
        for (Map.Entry<Long, ExportedRow> e : expected.entrySet()) {
            ExportedRow a = actual.get(e.getKey());
            ExportedRow x = e.getValue();
            assertTrue(Arrays.equals(x.vector(), a.vector()) && x.count() == a.count() && x.updatedAt() == a.updatedAt(),
                    "row " + e.getKey() + ": " + a + " where the State Processor API read " + x);
        }
    }

    private static List<ExportedRow> readThroughStateProcessorApi(Path checkpoint, ModelInfo info) throws Exception {
        List<ExportedRow> rows = new ArrayList<>();
        CheckpointRows.readThroughStateProcessorApi(checkpoint, info, rows::add);
        return rows;
    }

    private static Map<Long, ExportedRow> byKey(List<ExportedRow> rows) {
        Map<Long, ExportedRow> m = new TreeMap<>();
        rows.forEach(r -> m.put(FeatureKey.of(r.field(), r.id()), r));
        return m;
    }

    /**
     * Runs the job (from {@code restore}, if given) until it has completed a few checkpoints, cancels
     * it and returns its newest retained checkpoint.
     */
    private static Path run(Path checkpoints, int parallelism, Path restore, int generation) throws Exception {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(PipelineOptions.MAX_PARALLELISM, MAX_PARALLELISM);
        if (restore != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restore.toUri().toString());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        KeyGroups keyGroups = new KeyGroups(MAX_PARALLELISM);
        env.fromSequence(0, 1L << 40) // more than it gets through: cancelled after a few checkpoints
                .map(i -> {
                    if (i % 200 == 0) {
                        Thread.sleep(5); // a few thousand updates between checkpoints, not millions
                    }
                    return i;
                }).returns(Types.LONG)
                .keyBy(i -> keyGroups.keyOf(keyGroups.bucketOf(Updates.key(i))), Types.INT)
                .process(new Updates(generation)).uid(PsState.PS_UID)
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("checkpoint-rows-test");
        try {
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (completed(checkpoints) < 6) {
                assertTrue(System.nanoTime() < deadline, "the job completed too few checkpoints in " + checkpoints);
                Thread.sleep(200);
            }
        } finally {
            job.cancel().get();
        }
        return LatestCheckpoint.in(checkpoints);
    }

    /** The number of the newest completed checkpoint (chk-N) under {@code checkpoints}, 0 if none. */
    private static long completed(Path checkpoints) {
        try {
            return LatestCheckpoint.find(checkpoints).map(p -> Long.parseLong(p.getFileName().toString().substring("chk-".length()))).orElse(0L);
        } catch (java.io.UncheckedIOException e) {
            return 0; // a subsumed checkpoint deleted while listed: ask again
        }
    }

    /**
     * Puts, rewrites and removes rows of a few thousand keys in the PS's row states; keeps the last
     * rows it touched as its changed rows, which take the place of the stored ones in an export.
     */
    static final class Updates extends KeyedProcessFunction<Integer, Long, Long> implements CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private static final int CHANGED = 40;
        private final int generation;
        private transient MapState<Long, EmbeddingRow> rows;
        private transient MapState<Long, EmbeddingRow> dense;
        private transient ListState<byte[]> changedState;
        private transient Deque<long[]> changed;

        Updates(int generation) {
            this.generation = generation;
        }

        static long key(long i) {
            if (i % 10 == 8) {
                return DenseChunks.key((int) (i % 5));
            }
            return FeatureKey.of((int) (i % 7), i * 7919 % 6000);
        }

        @Override
        public void open(OpenContext openContext) {
            rows = getRuntimeContext().getMapState(PsState.rows(Duration.ofDays(365)));
            dense = getRuntimeContext().getMapState(PsState.denseRows());
        }

        @Override
        public void processElement(Long i, Context ctx, Collector<Long> out) throws Exception {
            long key = key(i);
            if (FeatureKey.isDense(key)) {
                dense.put(key, row(i, DenseChunks.WIDTH));
            } else if (i % 10 == 7 || i % 10 == 3 && generation > 0) {
                rows.remove(key);
            } else {
                rows.put(key, row(i, WIDTH));
                changed.addLast(new long[] {key, i});
                if (changed.size() > CHANGED) {
                    changed.removeFirst();
                }
            }
        }

        private EmbeddingRow row(long i, int width) {
            float[] w = new float[width];
            for (int j = 0; j < width; j++) {
                w[j] = (float) (i * 0.001 + j + generation * 100);
            }
            EmbeddingRow row = new EmbeddingRow(w, new float[width]);
            row.count = i;
            row.version = i / 3;
            row.updatedAt = System.currentTimeMillis();
            return row;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            changedState.clear();
            if (changed.isEmpty()) {
                return;
            }
            ChangedRows.Writer writer = new ChangedRows.Writer(changed.size(), WIDTH, WIDTH);
            for (long[] c : changed) {
                float[] floats = new float[2 * WIDTH];
                Arrays.fill(floats, 0, WIDTH, -c[1]); // unlike any stored row
                writer.add(c[0], floats, 0, c[1] + 1_000_000, 0, System.currentTimeMillis());
            }
            changedState.add(writer.toBytes());
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            changedState = context.getOperatorStateStore().getUnionListState(PsState.changedRows());
            changed = new ArrayDeque<>();
        }
    }
}
