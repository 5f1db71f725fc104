package io.streamtrain.sql;

import io.streamtrain.config.InvalidSettingsException;
import io.streamtrain.config.SettingsCheck;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.train.LoopOutputs;
import io.streamtrain.train.TrainingJob;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.feedback.Outgoing;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.KafkaSinks;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code INSERT INTO} a streamtrain table runs the exactly-once training loop on the query's rows,
 * in the same job:
 * <pre>
 * query rows ─► RowsToExamples ─► staging topic ─► the training loop (TrainingJob.loop) ─┐
 *      └───────────── dead letters ──────────────────────── loop outputs ──────────────┴─► one exactly-once Kafka sink
 * </pre>
 * The staging topic makes the rows what the loop already trains on exactly once: Kafka records
 * with offsets, visible (read_committed) when the checkpoint that wrote them completes. One sink,
 * because the planner keeps only the sink it is given (see {@link LoopOutputs#asRecords}).
 */
public final class TrainingTableSink implements DynamicTableSink {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingTableSink.class);

    private final String table;
    private final Configuration training;
    private final RowType columns;
    private final FeatureMapping mapping;
    private final int stagingPartitions;

    public TrainingTableSink(String table, Configuration training, RowType columns, FeatureMapping mapping, int stagingPartitions) {
        this.table = table;
        this.training = training;
        this.columns = columns;
        this.mapping = mapping;
        this.stagingPartitions = stagingPartitions;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        return ChangelogMode.insertOnly();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(ProviderContext providerContext, DataStream<RowData> rows) {
                return build(rows);
            }
        };
    }

    private DataStreamSink<?> build(DataStream<RowData> rows) {
        StreamExecutionEnvironment env = rows.getExecutionEnvironment();
        Configuration conf = new Configuration(training);
        checkJobSettings(env.getConfiguration());
        // The PS's buckets are the job's key groups, so the loop must know their number.
        if (env.getConfig().getMaxParallelism() <= 0) {
            env.setMaxParallelism(KeyGroups.DEFAULT_MAX_PARALLELISM);
        }
        conf.set(PipelineOptions.MAX_PARALLELISM, env.getConfig().getMaxParallelism());
        KafkaConnection connection = TrainingOptions.kafka(conf);
        String staging = conf.get(TrainingOptions.TOPIC);
        Map<TopicPartition, Long> feedbackStart;
        try (KafkaProgress kafka = new KafkaProgress(connection)) {
            KafkaPreflight.check(connection);
            kafka.ensureTopics(Map.of(staging, stagingPartitions));
            kafka.ensureJobTopics(conf);
            // A fresh job trains on what this query writes, not on what an earlier one left in
            // the staging topic; a restored job resumes from its checkpoint instead.
            conf.set(TrainingOptions.START_OFFSETS, TrainingOptions.offsetPairs(partitionOffsets(kafka.endOffsets(staging))));
            feedbackStart = kafka.endOffsets(TrainingOptions.feedbackTopic(conf));
        } catch (Exception e) {
            throw new ValidationException("streamtrain table " + table + ": cannot prepare its topics on " + connection + ": " + e.getMessage(), e);
        }
        TrainingJob.recordModelInfo(TrainingJob.modelInfo(conf), env.getConfiguration());

        DataStream<Outgoing> examples = rows
                .process(new RowsToExamples(table, new RowValues(columns), mapping, staging, TrainingOptions.deadLetterTopic(conf)))
                .returns(Outgoing.class)
                .uid("streamtrain-sql-rows")
                .name("rows-to-examples");
        LoopOutputs loop = TrainingJob.loop(env, conf, TrainingJob.examples(env, conf), feedbackStart);
        return examples.union(loop.asRecords(conf))
                .sinkTo(KafkaSinks.exactlyOnce(connection, Outgoing.serializer(), conf.get(TrainingOptions.NAME) + "-sql"))
                .uid("streamtrain-sql-sink")
                .name("streamtrain-sink");
    }

    /**
     * The job's Flink settings, checked as the command line's are; and the loop is exactly once
     * through checkpoints: say so at planning, not as a lost model later.
     */
    private void checkJobSettings(ReadableConfig job) {
        SettingsCheck.Result checked = SettingsCheck.check(job.toMap());
        checked.warnings().forEach(w -> LOG.warn("streamtrain table {}: {}", table, w));
        if (!checked.errors().isEmpty()) {
            throw new ValidationException("streamtrain table " + table + ": " + new InvalidSettingsException(checked.errors()).getMessage());
        }
        if (job.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL).isEmpty()) {
            throw new ValidationException("streamtrain table " + table + " trains exactly once through checkpoints:"
                    + " SET 'execution.checkpointing.interval' = '1s' (or longer) before the INSERT");
        }
    }

    private static Map<Integer, Long> partitionOffsets(Map<TopicPartition, Long> offsets) {
        Map<Integer, Long> result = new java.util.TreeMap<>();
        offsets.forEach((tp, o) -> result.put(tp.partition(), o));
        return result;
    }

    @Override
    public DynamicTableSink copy() {
        return new TrainingTableSink(table, training, columns, mapping, stagingPartitions);
    }

    @Override
    public String asSummaryString() {
        return "streamtrain(" + training.get(TrainingOptions.MODEL) + ", " + table + ")";
    }
}
