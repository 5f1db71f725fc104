package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.message.PushApplied;
import io.streamtrain.ps.message.RowChanged;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import io.streamtrain.ps.optimizer.DenseOptimizerConfig;
import io.streamtrain.ps.optimizer.DenseOptimizerKind;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.ps.row.DenseParameters;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.schema.FeatureKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parameter server through Flink's operator test harness: pulls and pushes, replays dropped,
 * admission, expiry on the operator's processing time, and snapshot and restore (RocksDB, as in a
 * job) at the same and at a changed parallelism. The "count" optimizer adds each occurrence to
 * weight 0, so a pulled weight 0 says how many occurrences the row took; weights 1 and 2 are the
 * row's deterministic first values.
 */
class ParameterServerTest {
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroups KEY_GROUPS = new KeyGroups(MAX_PARALLELISM);
    private static final int WIDTH = 3;
    private static final RowInitializer INITIALIZER = new RowInitializer(WIDTH, 0.05, 17);
    private static final int PARTITION = 0;

    /** A PS's settings; {@code cacheRows} 0 puts every row straight into keyed state. */
    private record Settings(int cacheRows, int minFrequency, Duration ttl, boolean publish, Duration quietWriteBack, boolean rocksDb) {
        static Settings cache(int rows) {
            return new Settings(rows, 1, null, false, Duration.ofHours(1), false);
        }

        Settings minFrequency(int n) {
            return new Settings(cacheRows, n, ttl, publish, quietWriteBack, rocksDb);
        }

        Settings ttl(Duration t) {
            return new Settings(cacheRows, minFrequency, t, publish, quietWriteBack, rocksDb);
        }

        Settings publishing() {
            return new Settings(cacheRows, minFrequency, ttl, true, quietWriteBack, rocksDb);
        }

        /** RocksDB, as in a job, and rows written back once quiet for 100 ms. */
        Settings checkpointed() {
            return new Settings(cacheRows, minFrequency, ttl, publish, Duration.ofMillis(100), true);
        }
    }

    @ParameterizedTest(name = "row cache of {0} rows")
    @ValueSource(ints = {0, 1000})
    void aPullGetsANewRowsFirstValuesAndThenWhatThePushesMadeOfIt(int cacheRows) throws Exception {
        long a = key(0, 1);
        long b = key(0, 2);
        try (var ps = ps(Settings.cache(cacheRows), 1, 0, null)) {
            PulledRows first = pull(ps, 0, a, b);
            assertArrayEquals(concat(INITIALIZER.initialWeights(a), INITIALIZER.initialWeights(b)), first.weights);
            assertArrayEquals(new long[] {0, 0}, first.versions);

            ps.processElement2(push(0, first, 2, 1), 0);
            ps.processElement2(push(1, pull(ps, 1, a), 3), 0);
            PulledRows after = pull(ps, 2, a, b);
            assertArrayEquals(new float[] {5, 1}, weight0(after));
            assertArrayEquals(new long[] {2, 1}, after.versions);
            assertEquals(INITIALIZER.initialWeights(a)[1], after.weights[1], "the count optimizer leaves the embedding alone");
        }
    }

    @Test
    void aReplayedPushIsDroppedAndStillAnnounced() throws Exception {
        long a = key(0, 1);
        try (var ps = ps(Settings.cache(1000), 1, 0, null)) {
            ps.setProcessingTime(10);
            PulledRows pulled = pull(ps, 5, a);
            ps.processElement2(push(5, pulled, 1), 0);
            ps.processElement2(push(5, pulled, 1), 0); // the feedback topic read again after a failure
            ps.processElement2(push(4, pulled, 1), 0); // an older batch
            assertEquals(1, weight0(pull(ps, 6, a))[0]);

            ps.setProcessingTime(12); // the notice window closes
            assertEquals(List.of("0/5 x2", "0/4 x1"), notices(ps));
        }
    }

    @Test
    void aFeatureGetsARowOnlyOnceItOccurredMinFrequencyTimes() throws Exception {
        long a = key(0, 1);
        try (var ps = ps(Settings.cache(1000).minFrequency(3), 1, 0, null)) {
            PulledRows pending = pull(ps, 0, a);
            assertArrayEquals(new float[WIDTH], pending.weights, "not admitted: zeros");
            ps.processElement2(push(0, pending, 1), 0);
            ps.processElement2(push(1, pull(ps, 1, a), 1), 0);
            assertArrayEquals(new float[WIDTH], pull(ps, 2, a).weights, "two occurrences of three");

            ps.processElement2(push(2, pull(ps, 2, a), 1), 0);
            PulledRows admitted = pull(ps, 3, a);
            assertEquals(1, admitted.weights[0], "only the admitting push's occurrence is applied");
            assertEquals(INITIALIZER.initialWeights(a)[1], admitted.weights[1]);
            assertEquals(1, admitted.versions[0]);

            long bias = FeatureKey.BIAS;
            assertArrayEquals(INITIALIZER.initialWeights(bias), pull(ps, 4, bias).weights, "the bias is admitted at once");
        }
    }

    @ParameterizedTest(name = "row cache of {0} rows")
    @ValueSource(ints = {0, 1000})
    void aRowNotUpdatedForItsTtlIsGoneAndStartsAgain(int cacheRows) throws Exception {
        long a = key(0, 1);
        try (var ps = ps(Settings.cache(cacheRows).ttl(Duration.ofSeconds(10)), 1, 0, null)) {
            ps.setProcessingTime(1_000);
            ps.processElement2(push(0, pull(ps, 0, a), 4), 0);
            ps.setProcessingTime(10_999);
            assertEquals(4, weight0(pull(ps, 1, a))[0], "still live 1 ms before its TTL");

            ps.setProcessingTime(11_000);
            PulledRows expired = pull(ps, 2, a);
            assertArrayEquals(INITIALIZER.initialWeights(a), expired.weights, "a fresh row");
            assertEquals(0, expired.versions[0]);
            ps.processElement2(push(2, expired, 1), 0);
            assertEquals(1, weight0(pull(ps, 3, a))[0]);
        }
    }

    @Test
    void everyChangedRowIsPublishedWhenTheJobPublishesModelUpdates() throws Exception {
        long a = key(0, 1);
        long b = key(0, 2);
        try (var ps = ps(Settings.cache(1000).publishing(), 1, 0, null)) {
            ps.setProcessingTime(7);
            ps.processElement2(push(0, pull(ps, 0, a, b), 2, 1), 0);
            List<RowChanged> changed = ps.getSideOutput(ParameterServer.ROWS_CHANGED).stream()
                    .map(StreamRecord::getValue).collect(Collectors.toList());
            assertEquals(List.of(a, b), changed.stream().map(r -> r.key).collect(Collectors.toList()));
            assertEquals(2, changed.get(0).weights[0]);
            assertEquals(7, changed.get(0).appliedAt);
            assertEquals(List.of(1L, 1L), changed.stream().map(r -> r.version).collect(Collectors.toList()), "each row's first push");
        }
    }

    /**
     * A published update's version is its row's count of pushes applied, so a recovery that applies
     * the same pushes again publishes the same (row, version, weights); a replayed push publishes nothing.
     */
    @Test
    void publishedVersionsCountEachRowsPushesAndAReplayedPushPublishesNothing() throws Exception {
        long a = key(0, 1);
        long b = key(0, 2);
        try (var ps = ps(Settings.cache(1000).publishing(), 1, 0, null)) {
            Push first = push(0, pull(ps, 0, a, b), 2, 1);
            Push second = push(1, pull(ps, 1, a), 3);
            ps.processElement2(first, 0);
            ps.processElement2(second, 0);
            ps.processElement2(second, 0); // the at-least-once feedback repeats it
            List<RowChanged> changed = ps.getSideOutput(ParameterServer.ROWS_CHANGED).stream()
                    .map(StreamRecord::getValue).collect(Collectors.toList());
            assertEquals(List.of(a + "@1", b + "@1", a + "@2"),
                    changed.stream().map(r -> r.key + "@" + r.version).collect(Collectors.toList()));
            assertEquals(5, changed.get(2).weights[0], "the count oracle's weight after both pushes");
        }
    }

    @Test
    void aRestoreKeepsTheRowsWrittenBackTheChangedRowsInTheCacheAndTheBatchesApplied() throws Exception {
        long quiet = key(0, 1);
        long changed = key(0, 2);
        Settings settings = Settings.cache(1000).checkpointed();
        OperatorSubtaskState snapshot;
        try (var ps = ps(settings, 1, 0, null)) {
            ps.setProcessingTime(1);
            ps.processElement2(push(0, pull(ps, 0, quiet), 3), 0);
            ps.setProcessingTime(1_000); // the first row went quiet: this push writes it back
            ps.processElement2(push(1, pull(ps, 1, changed), 5), 0);
            snapshot = checkpoint(ps, 1);
        }
        try (var ps = ps(settings, 1, 0, snapshot)) {
            ps.setProcessingTime(2_000);
            assertArrayEquals(new float[] {3, 5}, weight0(pull(ps, 2, quiet, changed)));
            ps.processElement2(push(1, pull(ps, 2, changed), 5), 0); // a replay of batch 1
            assertEquals(5, weight0(pull(ps, 3, changed))[0], "batch 1 was applied before the checkpoint");
        }
        // The changed row was in the checkpoint's operator state only, the quiet one in RocksDB.
        OperatorSubtaskState keyedOnly = OperatorSubtaskState.builder().setManagedKeyedState(snapshot.getManagedKeyedState()).build();
        try (var ps = ps(settings, 1, 0, keyedOnly)) {
            assertArrayEquals(new float[] {3, 0}, weight0(pull(ps, 2, quiet, changed)));
        }
    }

    @Test
    void afterAScaleUpEachSubtaskHasTheRowsOfItsKeyGroups() throws Exception {
        long[] quiet = {key(0, 1), key(1, 1)}; // in key groups owned by subtask 0, 1 of two
        long[] changed = {key(0, 2), key(1, 2)};
        Settings settings = Settings.cache(1000).checkpointed();
        OperatorSubtaskState snapshot;
        try (var ps = ps(settings, 1, 0, null)) {
            ps.setProcessingTime(1);
            for (int s = 0; s < 2; s++) {
                ps.processElement2(push(s, pull(ps, s, quiet[s]), 10 + s), 0);
            }
            ps.setProcessingTime(1_000);
            for (int s = 0; s < 2; s++) {
                ps.processElement2(push(2 + s, pull(ps, 2 + s, changed[s]), 20 + s), 0);
            }
            snapshot = checkpoint(ps, 1);
        }
        for (int s = 0; s < 2; s++) {
            OperatorSubtaskState share = AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot, MAX_PARALLELISM, 1, 2, s);
            try (var ps = ps(settings, 2, s, share)) {
                ps.setProcessingTime(2_000);
                assertEquals(10 + s, weight0(pull(ps, 4, quiet[s]))[0], "subtask " + s);
                assertEquals(20 + s, weight0(pull(ps, 4, changed[s]))[0], "subtask " + s);
                ps.processElement2(push(2 + s, pull(ps, 4, changed[s]), 1), 0); // a replay
                assertEquals(20 + s, weight0(pull(ps, 5, changed[s]))[0], "subtask " + s);
            }
        }
    }

    @Test
    void afterAScaleDownTheSubtaskHasTheChangedRowsOfBoth() throws Exception {
        long[] changed = {key(0, 2), key(1, 2)};
        Settings settings = Settings.cache(1000).checkpointed();
        List<OperatorSubtaskState> snapshots = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            try (var ps = ps(settings, 2, s, null)) {
                ps.setProcessingTime(1);
                ps.processElement2(push(0, pull(ps, 0, changed[s]), 30 + s), 0);
                snapshots.add(checkpoint(ps, 1));
            }
        }
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repartitionOperatorState(
                AbstractStreamOperatorTestHarness.repackageState(snapshots.toArray(new OperatorSubtaskState[0])), MAX_PARALLELISM, 2, 1, 0);
        try (var ps = ps(settings, 1, 0, merged)) {
            assertEquals(30, weight0(pull(ps, 1, changed[0]))[0]);
            assertEquals(31, weight0(pull(ps, 1, changed[1]))[0]);
        }
    }

    private static KeyedTwoInputStreamOperatorTestHarness<Integer, PullRequest, Push, PulledRows> ps(
            Settings s, int parallelism, int subtask, OperatorSubtaskState restored) throws Exception {
        return ps(s, DenseParameters.NONE, parallelism, subtask, restored);
    }

    private static KeyedTwoInputStreamOperatorTestHarness<Integer, PullRequest, Push, PulledRows> ps(
            Settings s, DenseParameters dense, int parallelism, int subtask, OperatorSubtaskState restored) throws Exception {
        ParameterServer server = new ParameterServer(new OptimizerConfig(OptimizerKind.COUNT, 0.1, 0, 0, 1, 0.1), INITIALIZER, dense,
                s.minFrequency(), s.ttl(), s.publish(), new RowCacheSize(s.cacheRows(), 0.0), s.quietWriteBack(),
                PsOptions.NOTICE_FLUSH_DELAY.defaultValue(), Duration.ofSeconds(1));
        var harness = new KeyedTwoInputStreamOperatorTestHarness<>(new ParameterServerOperator(server),
                (PullRequest p) -> KEY_GROUPS.keyOf(p.keyGroup), (Push p) -> KEY_GROUPS.keyOf(p.keyGroup),
                Types.INT, MAX_PARALLELISM, parallelism, subtask);
        if (s.rocksDb()) {
            harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        if (restored != null) {
            harness.initializeState(restored);
        }
        harness.open();
        return harness;
    }

    /** A DCN's dense parameters: a few dozen chunks, so both halves of the key groups hold some. */
    private static DenseParameters dense(boolean counting) {
        ModelShape shape = new ModelShape(ModelKind.DCN, 4, 6, List.of(32, 16), 2);
        return new DenseParameters(shape.denseLayout(), 5, new DenseOptimizerConfig(DenseOptimizerKind.ADAM, 0.01, 0.1, counting, true));
    }

    /** The first dense chunk key in the key groups subtask {@code half} of two owns. */
    private static long chunk(DenseParameters dense, int half) {
        for (long key : DenseChunks.keys(dense.layout())) {
            if (KEY_GROUPS.bucketOf(key) / (MAX_PARALLELISM / 2) == half) {
                return key;
            }
        }
        throw new AssertionError("no chunk in half " + half + ": make the layout larger");
    }

    @Test
    void denseChunksCountEachBatchOnceAndSurviveACheckpointAndAScaleUp() throws Exception {
        DenseParameters dense = dense(true);
        long[] chunks = {chunk(dense, 0), chunk(dense, 1)};
        Settings settings = Settings.cache(1000).checkpointed();
        OperatorSubtaskState snapshot;
        try (var ps = ps(settings, dense, 1, 0, null)) {
            for (int s = 0; s < 2; s++) {
                PulledRows first = pull(ps, 0, chunks[s]);
                assertArrayEquals(new float[DenseChunks.WIDTH], first.weights, "the count oracle's chunks start at zero");
                ps.processElement2(densePush(0, first, 7 + s), 0);
                ps.processElement2(densePush(0, first, 7 + s), 0); // a replay
                PulledRows after = pull(ps, 1, chunks[s]);
                assertEveryWeight(7 + s, after);
                assertEquals(1, after.versions[0]);
            }
            snapshot = checkpoint(ps, 1); // the chunks reach RocksDB only before this barrier
        }
        for (int s = 0; s < 2; s++) {
            OperatorSubtaskState share = AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot, MAX_PARALLELISM, 1, 2, s);
            try (var ps = ps(settings, dense, 2, s, share)) {
                ps.processElement2(densePush(0, pull(ps, 1, chunks[s]), 100), 0); // a replay of batch 0
                ps.processElement2(densePush(1, pull(ps, 1, chunks[s]), 3), 0);
                assertEveryWeight(10 + s, pull(ps, 2, chunks[s]));
            }
        }
    }

    @Test
    void denseChunksStartAtTheLayoutsValuesAndTakeTheDenseOptimizersStep() throws Exception {
        DenseParameters dense = dense(false);
        long chunk = chunk(dense, 0);
        try (var ps = ps(Settings.cache(1000), dense, 1, 0, null)) {
            PulledRows first = pull(ps, 0, chunk);
            float[] initial = dense.initialChunk(DenseChunks.chunkOf(chunk));
            assertArrayEquals(initial, first.weights);
            Push push = densePush(0, first, 4);
            for (int i = 0; i < DenseChunks.WIDTH; i++) {
                push.gradients[i] = i % 2 == 0 ? 2f : -0.5f;
            }
            ps.processElement2(push, 0);
            PulledRows after = pull(ps, 1, chunk);
            for (int i = 0; i < DenseChunks.WIDTH; i++) {
                float adamFirstStep = i % 2 == 0 ? -0.01f : 0.01f; // lr × sign(g), bias-corrected
                assertEquals(initial[i] + adamFirstStep, after.weights[i], 1e-5, "weight " + i);
            }
        }
    }

    /**
     * A recovery replays the feedback after its checkpoint: the dense steps it scales for staleness
     * must come out as in the first run, so the averages of missed updates are restored too.
     */
    @Test
    void aRestoredPsReplaysStaleDenseStepsAsTheFirstRunDid() throws Exception {
        DenseParameters dense = dense(false);
        long chunk = chunk(dense, 0);
        Settings settings = Settings.cache(1000).checkpointed();
        OperatorSubtaskState snapshot;
        float[] firstRun;
        try (var ps = ps(settings, dense, 1, 0, null)) {
            PulledRows early = pull(ps, 0, chunk);
            for (int seq = 0; seq < 6; seq++) { // each push staler than the last: the chunk's usual staleness grows
                ps.processElement2(gradientPush(seq, early), 0);
            }
            snapshot = checkpoint(ps, 1);
            firstRun = afterStalePushes(ps, chunk);
        }
        try (var ps = ps(settings, dense, 1, 0, snapshot)) {
            assertArrayEquals(firstRun, afterStalePushes(ps, chunk), "the replay's weights equal the first run's");
        }
    }

    /** Pushes batches 6..9 all pulled at batch 6 (missing 0..3 updates) and returns the chunk's weights. */
    private static float[] afterStalePushes(KeyedTwoInputStreamOperatorTestHarness<Integer, PullRequest, Push, PulledRows> ps,
                                            long chunk) throws Exception {
        PulledRows pulled = pull(ps, 6, chunk);
        for (int seq = 6; seq < 10; seq++) {
            ps.processElement2(gradientPush(seq, pulled), 0);
        }
        return pull(ps, 10, pulled.keys).weights;
    }

    private static Push gradientPush(long seq, PulledRows pulled) {
        Push push = densePush(seq, pulled, 4);
        for (int i = 0; i < DenseChunks.WIDTH; i++) {
            push.gradients[i] = (float) Math.sin(seq * 31 + i);
        }
        return push;
    }

    private static Push densePush(long seq, PulledRows pulled, int examples) {
        return new Push(pulled.keyGroup, PARTITION, seq, 0, pulled.pulledAt, pulled.keys, new int[] {examples}, pulled.versions,
                new float[DenseChunks.WIDTH]);
    }

    private static void assertEveryWeight(float expected, PulledRows rows) {
        float[] all = new float[rows.weights.length];
        java.util.Arrays.fill(all, expected);
        assertArrayEquals(all, rows.weights);
    }

    /** What a checkpoint takes: the write before the barrier, then the snapshot. */
    private static OperatorSubtaskState checkpoint(KeyedTwoInputStreamOperatorTestHarness<Integer, PullRequest, Push, PulledRows> ps,
                                                   long id) throws Exception {
        ps.prepareSnapshotPreBarrier(id);
        return ps.snapshot(id, ps.getProcessingTime());
    }

    /**
     * A row key of field 1 in key group 0 (for {@code half} 0) or 64 (1): the first key groups of
     * subtasks 0 and 1 of two, so every key of one half shares a pull.
     */
    private static long key(int half, int n) {
        int found = 0;
        for (long id = 0; ; id++) {
            long key = FeatureKey.of(1, id);
            if (KEY_GROUPS.bucketOf(key) == half * MAX_PARALLELISM / 2 && ++found == n) {
                return key;
            }
        }
    }

    /** Pulls {@code keys} (of one key group) for batch {@code seq} and returns the answer. */
    private static PulledRows pull(KeyedTwoInputStreamOperatorTestHarness<Integer, PullRequest, Push, PulledRows> ps,
                                   long seq, long... keys) throws Exception {
        int group = KEY_GROUPS.bucketOf(keys[0]);
        for (long key : keys) {
            assertEquals(group, KEY_GROUPS.bucketOf(key), "a pull's keys share a key group");
        }
        ps.processElement1(new PullRequest(group, PARTITION, seq, keys), 0);
        List<PulledRows> out = ps.extractOutputValues();
        ps.getOutput().clear();
        assertEquals(1, out.size());
        return out.get(0);
    }

    /** Batch {@code seq}'s push for the rows {@code pulled}, with these occurrences and zero gradients. */
    private static Push push(long seq, PulledRows pulled, int... occurrences) {
        assertEquals(pulled.keys.length, occurrences.length);
        return new Push(pulled.keyGroup, PARTITION, seq, 0, pulled.pulledAt, pulled.keys, occurrences, pulled.versions,
                new float[pulled.keys.length * WIDTH]);
    }

    private static float[] weight0(PulledRows rows) {
        float[] w = new float[rows.keys.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = rows.weights[i * WIDTH];
        }
        return w;
    }

    private static float[] concat(float[] a, float[] b) {
        float[] c = new float[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static List<String> notices(KeyedTwoInputStreamOperatorTestHarness<Integer, PullRequest, Push, PulledRows> ps) {
        List<String> out = new ArrayList<>();
        for (StreamRecord<PushApplied> r : ps.getSideOutput(ParameterServer.APPLIED)) {
            out.add(r.getValue().sourcePartition + "/" + r.getValue().batchSeq + " x" + r.getValue().pushes);
        }
        return out;
    }
}
