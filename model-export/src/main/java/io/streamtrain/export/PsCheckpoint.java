package io.streamtrain.export;

import io.streamtrain.ps.ChangedRows;
import io.streamtrain.ps.PsState;
import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorBackendSerializationProxy;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.state.api.OperatorIdentifier;

/**
 * The parameter server's part of a checkpoint's {@code _metadata}: its keyed state handles (one per
 * subtask), its max parallelism (which fixes the key-group prefix of every RocksDB key), and its
 * changed rows ({@link PsState#changedRows()}), read straight from the operator state files.
 */
record PsCheckpoint(List<KeyedStateHandle> keyed, int maxParallelism, List<OperatorStateHandle> operator) {

    static PsCheckpoint load(Path checkpoint) throws IOException {
        CheckpointMetadata metadata = CheckpointFiles.metadata(checkpoint.toAbsolutePath());
        OperatorID ps = OperatorIdentifier.forUid(PsState.PS_UID).getOperatorId();
        for (OperatorState operator : metadata.getOperatorStates()) {
            if (operator.getOperatorID().equals(ps)) {
                List<KeyedStateHandle> keyed = new ArrayList<>();
                List<OperatorStateHandle> operatorHandles = new ArrayList<>();
                for (OperatorSubtaskState subtask : operator.getStates()) {
                    keyed.addAll(subtask.getManagedKeyedState());
                    operatorHandles.addAll(subtask.getManagedOperatorState());
                }
                return new PsCheckpoint(keyed, operator.getMaxParallelism(), operatorHandles);
            }
        }
        throw new IOException("checkpoint " + checkpoint + " holds no parameter server state (operator uid " + PsState.PS_UID
                + "): is it a checkpoint of a streamtrain training job?");
    }

    /**
     * Every subtask's changed rows by row key: union state, so the checkpoint holds each subtask's
     * own list and together they are the whole (what the State Processor API's union read returns).
     */
    Map<Long, ExportedRow> changedRows() throws Exception {
        Map<Long, ExportedRow> changed = new HashMap<>();
        ClassLoader classes = PsCheckpoint.class.getClassLoader();
        for (OperatorStateHandle handle : operator) {
            OperatorStateHandle.StateMetaInfo where = handle.getStateNameToPartitionOffsets().get(PsState.CHANGED_ROWS);
            if (where == null || where.getOffsets().length == 0) {
                continue;
            }
            try (FSDataInputStream in = handle.openInputStream()) {
                DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(in);
                OperatorBackendSerializationProxy proxy = new OperatorBackendSerializationProxy(classes);
                proxy.read(view);
                TypeSerializer<?> serializer = serializerOf(proxy.getOperatorStateMetaInfoSnapshots(), PsState.CHANGED_ROWS);
                for (long offset : where.getOffsets()) {
                    in.seek(offset);
                    ChangedRows.read((byte[]) serializer.deserialize(view), (key, row) -> changed.put(key,
                            new ExportedRow(FeatureKey.field(key), FeatureKey.id(key), row.weights, row.count, row.updatedAt)));
                }
            }
        }
        return changed;
    }

    private static TypeSerializer<?> serializerOf(List<StateMetaInfoSnapshot> states, String name) throws IOException {
        for (StateMetaInfoSnapshot state : states) {
            if (state.getName().equals(name)) {
                return state.getTypeSerializerSnapshot(StateMetaInfoSnapshot.CommonSerializerKeys.VALUE_SERIALIZER).restoreSerializer();
            }
        }
        throw new IOException("operator state " + name + " has offsets but no serializer in its file");
    }
}
