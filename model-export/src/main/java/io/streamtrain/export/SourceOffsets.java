package io.streamtrain.export;

import io.streamtrain.contract.OperatorUids;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitSerializer;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * The training topic's offsets in a checkpoint: the examples source's split state (Flink's
 * {@code SourceOperator} keeps each Kafka split, serialised, in the operator list state
 * {@value #STATE}). Every record below them had been read by the job when the checkpoint was taken.
 */
public final class SourceOffsets {
    static final String STATE = "SourceReaderState";

    private SourceOffsets() {}

    /** Partition → next offset to read. */
    public static Map<Integer, Long> read(Path checkpoint) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        SavepointReader savepoint = SavepointReader.read(env, checkpoint.toUri().toString(), new EmbeddedRocksDBStateBackend(true));
        KafkaPartitionSplitSerializer serializer = new KafkaPartitionSplitSerializer();
        Map<Integer, Long> offsets = new TreeMap<>();
        try (CloseableIterator<byte[]> splits = savepoint
                .readListState(OperatorIdentifier.forUid(OperatorUids.EXAMPLES_SOURCE), STATE, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
                .executeAndCollect("streamtrain-export-offsets")) {
            while (splits.hasNext()) {
                KafkaPartitionSplit split = SimpleVersionedSerialization.readVersionAndDeSerialize(serializer, splits.next());
                offsets.put(split.getPartition(), split.getStartingOffset());
            }
        }
        return offsets;
    }
}
