package io.streamtrain.export;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.contract.OperatorUids;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.DefaultOperatorStateBackendBuilder;
import org.apache.flink.runtime.state.OperatorStateBackend;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka offsets in a checkpoint or savepoint: a Kafka source's split state (Flink's
 * {@code SourceOperator} keeps each split, serialised, in the operator list state {@value #STATE}).
 * Every record below them had been read by the job when the checkpoint was taken. Read from the
 * {@code _metadata} file with Flink's own restore code, in milliseconds and without running a job,
 * so a run can follow its own checkpoints.
 */
public final class SourceOffsets {
    static final String STATE = "SourceReaderState";

    private SourceOffsets() {}

    /** The training job's examples source: partition → next offset to read. */
    public static Map<Integer, Long> read(Path checkpoint) throws IOException {
        Map<TopicPartition, Long> splits = of(checkpoint, OperatorUids.EXAMPLES_SOURCE);
        if (splits.isEmpty()) {
            throw new IllegalArgumentException(checkpoint + " holds no state of the examples source (uid " + OperatorUids.EXAMPLES_SOURCE + ")");
        }
        Map<Integer, Long> offsets = new TreeMap<>();
        splits.forEach((tp, offset) -> offsets.put(tp.partition(), offset));
        return offsets;
    }

    /**
     * Each split of the source with operator uid {@code uid} in {@code checkpoint} (its directory or
     * its {@code _metadata} file): topic partition → next offset to read; empty when the checkpoint
     * holds no state of that source.
     */
    public static Map<TopicPartition, Long> of(Path checkpoint, String uid) throws IOException {
        Path metadata = checkpoint.getFileName().toString().equals(CheckpointFiles.METADATA) ? checkpoint : checkpoint.resolve(CheckpointFiles.METADATA);
        ClassLoader classLoader = SourceOffsets.class.getClassLoader();
        CheckpointMetadata loaded;
        try (InputStream file = ModelStorage.open(metadata);
                DataInputStream in = new DataInputStream(new BufferedInputStream(file))) {
            loaded = Checkpoints.loadCheckpointMetadata(in, classLoader, ModelStorage.uri(metadata.getParent()).toString());
        }
        OperatorID source = OperatorIdentifier.forUid(uid).getOperatorId();
        List<OperatorStateHandle> handles = new ArrayList<>();
        for (OperatorState operator : loaded.getOperatorStates()) {
            if (operator.getOperatorID().equals(source)) {
                for (OperatorSubtaskState subtask : operator.getStates()) {
                    handles.addAll(subtask.getManagedOperatorState());
                }
            }
        }
        Map<TopicPartition, Long> offsets = new HashMap<>();
        if (handles.isEmpty()) {
            return offsets;
        }
        KafkaPartitionSplitSerializer serializer = new KafkaPartitionSplitSerializer();
        try (CloseableRegistry registry = new CloseableRegistry()) {
            OperatorStateBackend state = new DefaultOperatorStateBackendBuilder(classLoader, new ExecutionConfig(), false, handles, registry).build();
            try {
                for (byte[] bytes : state.getListState(new ListStateDescriptor<>(STATE, BytePrimitiveArraySerializer.INSTANCE)).get()) {
                    KafkaPartitionSplit split = SimpleVersionedSerialization.readVersionAndDeSerialize(serializer, bytes);
                    if (split.getStartingOffset() >= 0) { // not a marker such as "earliest" that the reader has yet to resolve
                        offsets.put(split.getTopicPartition(), split.getStartingOffset());
                    }
                }
            } finally {
                state.dispose();
            }
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot read the state of source " + uid + " in " + metadata + ": " + e.getMessage(), e);
        }
        return offsets;
    }
}
