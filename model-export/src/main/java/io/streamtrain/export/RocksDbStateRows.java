package io.streamtrain.export;

import io.streamtrain.ps.PsState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * The PS's rows of keyed state in RocksDB's own files (an incremental checkpoint, a native-format
 * savepoint): each subtask's handle names the files of one whole RocksDB database (its SST files
 * over all levels, MANIFEST, CURRENT, OPTIONS), as Flink restores it. Each database is put back
 * together in a scratch directory (hard links where the checkpoint is on the same local disk) and
 * opened read-only, so RocksDB itself resolves what files alone do not say: which of several
 * versions of a key across levels is the newest, deletions and range deletions (a rescale clips a
 * database by key group). Reader tasks then iterate the row column families by key-group range in
 * parallel, and only the key groups the handle owns.
 */
final class RocksDbStateRows implements AutoCloseable {
    private static final List<String> ROW_STATES = List.of(PsState.rows(null).getName(), PsState.denseRows().getName());

    private final List<Database> databases = new ArrayList<>();
    private final int prefixBytes;

    private RocksDbStateRows(int maxParallelism) {
        this.prefixBytes = CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(maxParallelism);
    }

    /** One subtask's database, opened read-only. */
    private record Database(RocksDB db, DBOptions options, ColumnFamilyOptions familyOptions, List<ColumnFamilyHandle> families,
                            Map<String, ColumnFamilyHandle> byName, KeyGroupRange range, List<StateMetaInfoSnapshot> states) {}

    static RocksDbStateRows open(List<IncrementalRemoteKeyedStateHandle> handles, int maxParallelism, Path scratch) throws Exception {
        RocksDB.loadLibrary();
        RocksDbStateRows rows = new RocksDbStateRows(maxParallelism);
        try {
            int i = 0;
            for (IncrementalRemoteKeyedStateHandle handle : handles) {
                rows.databases.add(open(handle, scratch.resolve("db-" + i++)));
            }
            return rows;
        } catch (Exception e) {
            rows.close();
            throw e;
        }
    }

    private static Database open(IncrementalRemoteKeyedStateHandle handle, Path dir) throws Exception {
        Files.createDirectories(dir);
        for (HandleAndLocalPath file : Stream.concat(handle.getSharedState().stream(), handle.getPrivateState().stream()).toList()) {
            place(file.getHandle(), dir.resolve(file.getLocalPath()));
        }
        List<StateMetaInfoSnapshot> states;
        try (FSDataInputStream in = handle.getMetaDataStateHandle().openInputStream()) {
            KeyedBackendSerializationProxy<?> proxy = new KeyedBackendSerializationProxy<>(RocksDbStateRows.class.getClassLoader());
            proxy.read(new DataInputViewStreamWrapper(in));
            states = proxy.getStateMetaInfoSnapshots();
        }
        List<byte[]> names;
        try (Options options = new Options()) {
            names = RocksDB.listColumnFamilies(options, dir.toString());
        }
        ColumnFamilyOptions familyOptions = new ColumnFamilyOptions();
        DBOptions options = new DBOptions();
        List<ColumnFamilyDescriptor> descriptors = names.stream().map(n -> new ColumnFamilyDescriptor(n, familyOptions)).toList();
        List<ColumnFamilyHandle> families = new ArrayList<>();
        RocksDB db;
        try {
            db = RocksDB.openReadOnly(options, dir.toString(), descriptors, families);
        } catch (RocksDBException e) {
            familyOptions.close();
            options.close();
            throw new IOException("cannot open the RocksDB state of key groups " + handle.getKeyGroupRange() + " (put together in " + dir
                    + "): " + e.getMessage(), e);
        }
        Map<String, ColumnFamilyHandle> byName = new HashMap<>();
        for (ColumnFamilyHandle family : families) {
            byName.put(new String(family.getName(), StandardCharsets.UTF_8), family);
        }
        return new Database(db, options, familyOptions, families, byName, handle.getKeyGroupRange(), states);
    }

    /** Puts one state file at {@code target}: a hard link to a local file if possible, else a copy of its bytes. */
    private static void place(StreamStateHandle handle, Path target) throws IOException {
        Path local = CheckpointFiles.localPath(handle);
        if (local != null) {
            try {
                Files.createLink(target, local);
                return;
            } catch (IOException | UnsupportedOperationException e) {
                // another file system, or links not allowed: copy below
            }
        }
        if (handle instanceof ByteStreamStateHandle inline) {
            Files.write(target, inline.getData());
            return;
        }
        try (InputStream in = handle.openInputStream()) {
            Files.copy(in, target);
        }
    }

    /** Reader tasks: each database's key groups in {@code splitsPerDatabase} ranges, over both row states. */
    List<CheckpointRows.RowTask> tasks(int splitsPerDatabase) throws IOException {
        List<CheckpointRows.RowTask> tasks = new ArrayList<>();
        for (Database database : databases) {
            for (String state : ROW_STATES) {
                ColumnFamilyHandle family = database.byName().get(state);
                RowEntries entries = RowEntries.of(database.states(), state);
                if (family == null || entries == null) {
                    continue;
                }
                for (KeyGroupRange range : KeyGroupSplits.of(database.range(), splitsPerDatabase)) {
                    tasks.add(sink -> read(database.db(), family, entries.duplicate(), range, sink));
                }
            }
        }
        return tasks;
    }

    private void read(RocksDB db, ColumnFamilyHandle family, RowEntries entries, KeyGroupRange range, Consumer<ExportedRow> sink)
            throws Exception {
        try (Slice lower = new Slice(prefix(range.getStartKeyGroup()));
                Slice upper = new Slice(prefix(range.getEndKeyGroup() + 1));
                ReadOptions options = new ReadOptions()
                        .setIterateLowerBound(lower)
                        .setIterateUpperBound(upper)
                        .setFillCache(false)
                        .setReadaheadSize(2 << 20);
                RocksIterator it = db.newIterator(family, options)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                ExportedRow row = entries.decode(it.key(), it.value());
                if (row != null) {
                    sink.accept(row);
                }
            }
            it.status();
        }
    }

    /** The first {@code prefixBytes} bytes of every key of key group {@code keyGroup}. */
    private byte[] prefix(int keyGroup) {
        byte[] prefix = new byte[prefixBytes];
        CompositeKeySerializationUtils.serializeKeyGroup(keyGroup, prefix);
        return prefix;
    }

    @Override
    public void close() {
        for (Database database : databases) {
            database.families().forEach(ColumnFamilyHandle::close);
            database.db().close();
            database.familyOptions().close();
            database.options().close();
        }
    }
}
