package io.streamtrain.export;

import io.streamtrain.ps.PsState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.StateSerializerProvider;
import org.apache.flink.runtime.state.restore.FullSnapshotRestoreOperation;
import org.apache.flink.runtime.state.restore.KeyGroup;
import org.apache.flink.runtime.state.restore.KeyGroupEntry;
import org.apache.flink.runtime.state.restore.SavepointRestoreResult;
import org.apache.flink.runtime.state.restore.ThrowingIterator;

/**
 * The PS's rows of keyed state in Flink's canonical format (a full, non-incremental RocksDB
 * checkpoint, a canonical savepoint, one written by the State Processor API): per key group a
 * stream of entries, each key once, read with Flink's own reader ({@link FullSnapshotRestoreOperation}).
 * The key groups of a file are read in parallel: each task seeks to its own range's offsets.
 */
final class CanonicalStateRows {
    private CanonicalStateRows() {}

    static List<CheckpointRows.RowTask> tasks(List<KeyGroupsStateHandle> handles, int splitsPerHandle) {
        List<CheckpointRows.RowTask> tasks = new ArrayList<>();
        for (KeyGroupsStateHandle handle : handles) {
            for (KeyGroupRange range : KeyGroupSplits.of(handle.getKeyGroupRange(), splitsPerHandle)) {
                KeyGroupsStateHandle part = handle.getIntersection(range);
                if (part != null) {
                    tasks.add(sink -> read(new KeyGroupsStateHandle(part.getGroupRangeOffsets(),
                            new BufferedStateHandle(part.getDelegateStateHandle())), range, sink));
                }
            }
        }
        return tasks;
    }

    private static void read(KeyGroupsStateHandle handle, KeyGroupRange range, Consumer<ExportedRow> sink) throws Exception {
        FullSnapshotRestoreOperation<Integer> restore = new FullSnapshotRestoreOperation<>(range, CanonicalStateRows.class.getClassLoader(),
                List.of(handle), StateSerializerProvider.fromNewRegisteredSerializer(IntSerializer.INSTANCE));
        try (ThrowingIterator<SavepointRestoreResult> results = restore.restore()) {
            while (results.hasNext()) {
                SavepointRestoreResult result = results.next();
                List<RowEntries> byStateId = new ArrayList<>();
                for (var state : result.getStateMetaInfoSnapshots()) {
                    boolean rows = state.getName().equals(PsState.rows(null).getName()) || state.getName().equals(PsState.denseRows().getName());
                    byStateId.add(rows ? RowEntries.of(result.getStateMetaInfoSnapshots(), state.getName()) : null);
                }
                try (ThrowingIterator<KeyGroup> groups = result.getRestoredKeyGroups()) {
                    while (groups.hasNext()) {
                        try (ThrowingIterator<KeyGroupEntry> entries = groups.next().getKeyGroupEntries()) {
                            while (entries.hasNext()) {
                                KeyGroupEntry entry = entries.next();
                                RowEntries decoder = byStateId.get(entry.getKvStateId());
                                ExportedRow row = decoder == null ? null : decoder.decode(entry.getKey(), entry.getValue());
                                if (row != null) {
                                    sink.accept(row);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
