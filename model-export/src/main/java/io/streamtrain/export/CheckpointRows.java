package io.streamtrain.export;

import io.streamtrain.contract.ModelInfo;
import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.schema.FeatureKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the parameter server's rows out of a retained checkpoint or savepoint: its stored rows,
 * each replaced by its newer copy where the checkpoint also holds one among the PS's changed rows
 * ({@link io.streamtrain.ps.PsState#changedRows()}). It only reads files, so it works while the
 * training job keeps running.
 *
 * <p>The state files are read directly and in parallel, one task per range of key groups: RocksDB's
 * own files ({@link RocksDbStateRows}: incremental checkpoints, native savepoints) or Flink's
 * canonical format ({@link CanonicalStateRows}: full checkpoints, canonical savepoints). Any other
 * kind of keyed state handle (the changelog backend's, say) is read through the State Processor API
 * ({@link StateProcessorRows}), row by row, an order of magnitude slower.
 */
public final class CheckpointRows {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointRows.class);

    private CheckpointRows() {}

    /** One reader task: puts the rows of its part of the state into {@code sink}. */
    @FunctionalInterface
    interface RowTask {
        void run(Consumer<ExportedRow> sink) throws Exception;
    }

    /**
     * Streams every row of the checkpoint to {@code sink}, one row at a time (rows come from several
     * threads; calls are serialised); returns how many there were. A damaged checkpoint is a
     * {@link CheckpointFiles.DamagedCheckpointException} before the first row.
     */
    public static long read(Path checkpoint, ModelInfo info, Consumer<ExportedRow> sink) throws Exception {
        Object lock = new Object();
        return read(checkpoint, info, () -> row -> {
            synchronized (lock) {
                sink.accept(row);
            }
        });
    }

    /**
     * Streams every row of the checkpoint, in no particular order, into sinks made by {@code sinks}:
     * each reader task asks for one and uses it on its own thread only. Returns how many rows there were.
     */
    public static long read(Path checkpoint, ModelInfo info, Supplier<? extends Consumer<ExportedRow>> sinks) throws Exception {
        CheckpointFiles.verify(checkpoint);
        PsCheckpoint ps = PsCheckpoint.load(checkpoint);
        Map<Long, ExportedRow> changed = ps.changedRows();
        int threads = Runtime.getRuntime().availableProcessors();
        int handles = Math.max(1, ps.keyed().size());
        int splits = Math.max(1, (2 * threads + handles - 1) / handles); // a few more tasks than threads, to even out skew
        if (ps.keyed().stream().allMatch(h -> h instanceof IncrementalRemoteKeyedStateHandle)) {
            try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-export-");
                    RocksDbStateRows rocks = RocksDbStateRows.open(only(ps.keyed(), IncrementalRemoteKeyedStateHandle.class),
                            ps.maxParallelism(), scratch.path())) {
                return run(rocks.tasks(splits), changed, sinks, threads);
            }
        }
        if (ps.keyed().stream().allMatch(h -> h instanceof KeyGroupsStateHandle)) {
            return run(CanonicalStateRows.tasks(only(ps.keyed(), KeyGroupsStateHandle.class), splits), changed, sinks, threads);
        }
        LOG.info("{} holds keyed state of a kind export does not read directly ({}); reading it through the State Processor API",
                checkpoint, ps.keyed().stream().map(h -> h.getClass().getSimpleName()).distinct().toList());
        return StateProcessorRows.read(checkpoint, info, sinks.get());
    }

    private static <T extends KeyedStateHandle> List<T> only(List<KeyedStateHandle> handles, Class<T> kind) {
        return handles.stream().map(kind::cast).toList();
    }

    /** Runs the tasks on {@code threads} threads; each stored row goes out as is or as its newer changed copy. */
    private static long run(List<RowTask> tasks, Map<Long, ExportedRow> changed, Supplier<? extends Consumer<ExportedRow>> sinks,
                            int threads) throws Exception {
        Set<Long> replaced = ConcurrentHashMap.newKeySet();
        AtomicLong rows = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "streamtrain-export-reader");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> running = new ArrayList<>();
            for (RowTask task : tasks) {
                running.add(pool.submit(() -> {
                    Consumer<ExportedRow> sink = sinks.get();
                    long[] n = {0};
                    task.run(row -> {
                        long key = FeatureKey.of(row.field(), row.id());
                        ExportedRow newer = changed.get(key);
                        if (newer != null) {
                            replaced.add(key);
                        }
                        sink.accept(newer != null ? newer : row);
                        n[0]++;
                    });
                    rows.addAndGet(n[0]);
                    return null;
                }));
            }
            for (Future<?> f : running) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    running.forEach(other -> other.cancel(true));
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
        } finally {
            pool.shutdownNow();
            // The tasks read databases the caller closes next: none may still be reading then.
            while (!pool.awaitTermination(1, java.util.concurrent.TimeUnit.SECONDS)) {
                LOG.info("waiting for export reader tasks to stop");
            }
        }
        Consumer<ExportedRow> rest = sinks.get();
        for (Map.Entry<Long, ExportedRow> e : changed.entrySet()) {
            if (!replaced.contains(e.getKey())) { // never written to RocksDB yet
                rest.accept(e.getValue());
                rows.incrementAndGet();
            }
        }
        return rows.get();
    }

    /**
     * Streams every row through the State Processor API, whatever the state's format: the path export
     * took before it read state files directly, kept to compare against (bench export, tests).
     */
    public static long readThroughStateProcessorApi(Path checkpoint, ModelInfo info, Consumer<ExportedRow> sink) throws Exception {
        CheckpointFiles.verify(checkpoint);
        return StateProcessorRows.read(checkpoint, info, sink);
    }

    public static List<ExportedRow> readAll(Path checkpoint, ModelInfo info) throws Exception {
        List<ExportedRow> rows = new ArrayList<>();
        read(checkpoint, info, rows::add);
        return rows;
    }
}
