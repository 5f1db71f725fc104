package io.streamtrain.train;

import io.streamtrain.contract.ModelInfo;
import io.streamtrain.contract.OperatorUids;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.model.ModelShape;
import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.ParameterServer;
import io.streamtrain.ps.ParameterServerOperator;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.ps.PsState;
import io.streamtrain.ps.RowCacheSize;
import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.ps.row.DenseChunks;
import io.streamtrain.ps.row.DenseParameters;
import io.streamtrain.ps.row.RowInitializer;
import io.streamtrain.train.batch.BatchCredits;
import io.streamtrain.train.batch.BatchSizeRamp;
import io.streamtrain.train.batch.CutLog;
import io.streamtrain.train.batch.ExampleValidator;
import io.streamtrain.train.batch.MiniBatch;
import io.streamtrain.train.batch.MiniBatcher;
import io.streamtrain.train.batch.MiniBatcherOperator;
import io.streamtrain.train.batch.PartitionLag;
import io.streamtrain.train.batch.PartitionTail;
import io.streamtrain.train.batch.SourceRecord;
import io.streamtrain.train.batch.SourceRecordDeserializer;
import io.streamtrain.train.worker.WindowReport;
import io.streamtrain.train.feedback.PushDeserializer;
import io.streamtrain.train.worker.Worker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the training loop:
 * <pre>
 * examples ─► batcher ─pulls─► PS (keyed by key group) ─rows─► worker (keyed by partition)
 *                └──────────────── batches ─────────────────────►  │
 *             PS ◄── feedback source ◄── feedback topic ◄── pushes ─┘
 * </pre>
 * The cycle is cut at the feedback topic, so the Flink graph itself is acyclic.
 */
public final class TrainingJob {
    public static final String EXAMPLES_SOURCE_UID = OperatorUids.EXAMPLES_SOURCE;
    public static final String BACKFILL_SOURCE_UID = "streamtrain-backfill-source";
    /** The feedback source's uid: a run reads its progress through the pushes from its checkpoints' split state. */
    public static final String FEEDBACK_SOURCE_UID = "streamtrain-feedback-source";

    private static final Logger LOG = LoggerFactory.getLogger(TrainingJob.class);

    private TrainingJob() {}

    /**
     * The training job on the examples topic: the loop with each output to its own Kafka sink.
     *
     * @param feedbackStart where a fresh job's feedback source starts (the topic's end when the
     *     job was built); a restored job resumes from its checkpoint instead.
     */
    public static void build(StreamExecutionEnvironment env, Configuration conf, Map<TopicPartition, Long> feedbackStart) {
        recordModelInfo(modelInfo(conf), conf);
        loop(env, conf, examples(env, conf), feedbackStart).sinkEach(conf);
    }

    /**
     * Writes {@link ModelInfo#FILE} into the job's checkpoint directory, on whichever file system it
     * is ({@code s3://…} too): with it, the checkpoints alone are enough for export and score, however
     * the job was started. A directory the job cannot write to fails it here, before it runs: its
     * checkpoints would fail the same way.
     */
    public static void recordModelInfo(ModelInfo info, ReadableConfig job) {
        job.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).ifPresent(dir -> {
            try {
                info.write(new org.apache.flink.core.fs.Path(dir));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + ModelInfo.FILE + " into the checkpoint directory " + dir
                        + " (" + CheckpointingOptions.CHECKPOINTS_DIRECTORY.key() + "): " + e.getMessage(), e);
            }
        });
    }

    /** The examples topic's records, from the configured start (a backfill: its own source, see below). */
    public static DataStream<SourceRecord> examples(StreamExecutionEnvironment env, Configuration conf) {
        String topic = conf.get(TrainingOptions.TOPIC);
        if (topic == null) {
            throw new IllegalArgumentException("no training topic: set " + TrainingOptions.TOPIC.key() + " (--topic)");
        }
        // A backfill's source has no stopping offsets: the batcher ignores records at or after the
        // range's end (PartitionTail.beyondRange). A split that finished could not be continued
        // from a savepoint, and the Kafka source does not reliably commit a finished split's last
        // offset (its fetcher may be gone), which is what the backfill's done rule reads.
        // It has its own uid and group, so a streaming job restored from it starts its source at
        // the hand-over offsets.
        Map<Integer, Long> stop = stopOffsets(conf);
        boolean backfill = !stop.isEmpty();
        KafkaSourceBuilder<SourceRecord> examplesBuilder = KafkaSource.<SourceRecord>builder()
                .setProperties(readCommitted(TrainingOptions.kafka(conf)))
                .setTopics(topic)
                .setGroupId(backfill ? TrainingOptions.backfillGroup(conf) : TrainingOptions.examplesGroup(conf))
                .setStartingOffsets(startingOffsets(conf, topic))
                .setDeserializer(new SourceRecordDeserializer())
                .setProperty(KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(), backfill ? "0" : "30000");
        return env.fromSource(new PromptCommitSource<>(examplesBuilder.build()), WatermarkStrategy.noWatermarks(), "examples")
                .uid(examplesSourceUid(conf));
    }

    /** The uid of the examples source of the job {@code conf} configures: a backfill's is its range's own. */
    public static String examplesSourceUid(Configuration conf) {
        Map<Integer, Long> stop = stopOffsets(conf);
        return stop.isEmpty() ? EXAMPLES_SOURCE_UID : backfillSourceUid(stop);
    }

    /** The training loop on {@code records}: batcher, PS and worker, with their outputs not yet sunk. */
    public static LoopOutputs loop(StreamExecutionEnvironment env, Configuration conf, DataStream<SourceRecord> records,
            Map<TopicPartition, Long> feedbackStart) {
        KafkaConnection kafka = TrainingOptions.kafka(conf);
        String topic = conf.get(TrainingOptions.TOPIC);
        KeyGroups keyGroups = new KeyGroups(conf.get(PipelineOptions.MAX_PARALLELISM));
        ModelShape shape = TrainingOptions.shape(conf);

        SingleOutputStreamOperator<MiniBatch> batches = records
                .keyBy(r -> keyGroups.keyOfPartition(r.partition), Types.INT)
                .transform("batcher", TypeInformation.of(MiniBatch.class), new MiniBatcherOperator(new MiniBatcher(
                        keyGroups,
                        DenseChunks.keys(shape.denseLayout()),
                        new BatchSizeRamp(conf.get(TrainingOptions.INITIAL_BATCH_SIZE), conf.get(TrainingOptions.BATCH_SIZE)),
                        conf.get(TrainingOptions.MAX_WAIT).toMillis(),
                        new ExampleValidator(conf.get(TrainingOptions.MAX_FEATURES), InputFormat.decoder(conf)),
                        conf.get(TrainingOptions.INJECT_FAILURE_AFTER),
                        topic,
                        new PartitionTail(kafka, stopOffsets(conf)),
                        new PartitionLag(kafka, topic, conf.get(TrainingOptions.LAG_REFRESH_INTERVAL).toMillis()),
                        new BatchCredits(kafka, TrainingOptions.appliedTopic(conf),
                                TrainingOptions.maxBatchesInFlight(conf), conf.get(TrainingOptions.CREDIT_WAIT).toMillis(),
                                conf.get(TrainingOptions.CREDIT_HARD_CAP).toMillis()),
                        cutLog(conf, kafka),
                        conf.get(TrainingOptions.METRICS_REPORT_INTERVAL).toMillis())))
                .uid("streamtrain-batcher")
                .name("batcher");
        DataStream<PullRequest> pulls = batches.getSideOutput(MiniBatcher.PULLS);

        KafkaSource<Push> feedback = KafkaSource.<Push>builder()
                .setProperties(kafka.client().properties())
                .setTopics(TrainingOptions.feedbackTopic(conf))
                .setGroupId(TrainingOptions.feedbackGroup(conf))
                .setStartingOffsets(OffsetsInitializer.offsets(feedbackStart, OffsetResetStrategy.EARLIEST))
                .setDeserializer(new PushDeserializer())
                .setProperty(KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(), "30000")
                .build();
        DataStream<Push> pushes = env.fromSource(new PromptCommitSource<>(feedback), WatermarkStrategy.noWatermarks(), "feedback")
                .uid(FEEDBACK_SOURCE_UID);

        SingleOutputStreamOperator<PulledRows> rows = pulls
                .keyBy(p -> keyGroups.keyOf(p.keyGroup), Types.INT)
                .connect(pushes.keyBy(p -> keyGroups.keyOf(p.keyGroup), Types.INT))
                .transform("parameter-server", TypeInformation.of(PulledRows.class), new ParameterServerOperator(new ParameterServer(
                        OptimizerConfig.from(conf),
                        RowInitializer.from(conf, shape.kind()),
                        DenseParameters.from(conf, shape),
                        conf.get(PsOptions.MIN_FREQUENCY),
                        conf.getOptional(PsOptions.ROW_TTL).orElse(null),
                        conf.contains(TrainingOptions.MODEL_UPDATES_TOPIC),
                        RowCacheSize.from(conf),
                        conf.get(PsOptions.QUIET_WRITE_BACK),
                        conf.get(PsOptions.NOTICE_FLUSH_DELAY),
                        conf.get(TrainingOptions.METRICS_REPORT_INTERVAL))))
                .uid(PsState.PS_UID);

        SingleOutputStreamOperator<Push> gradients = batches
                .keyBy(b -> keyGroups.keyOfPartition(b.sourcePartition), Types.INT)
                .connect(rows.keyBy(r -> keyGroups.keyOfPartition(r.sourcePartition), Types.INT))
                .process(new Worker(TrainingOptions.batchModel(conf), keyGroups, conf.get(TrainingOptions.VALIDATION_WINDOW),
                        conf.get(TrainingOptions.METRICS_REPORT_INTERVAL).toMillis()))
                .uid("streamtrain-worker")
                .name("worker");

        return new LoopOutputs(
                gradients,
                rows.getSideOutput(ParameterServer.APPLIED),
                gradients.getSideOutput(Worker.METRICS)
                        .union(rows.getSideOutput(ParameterServer.REPORTS).map(WindowReport::of).name("ps-reports"),
                                batches.getSideOutput(MiniBatcher.REPORTS)),
                batches.getSideOutput(MiniBatcher.DEAD_LETTERS),
                conf.contains(TrainingOptions.MODEL_UPDATES_TOPIC)
                        ? Optional.of(rows.getSideOutput(ParameterServer.ROWS_CHANGED)) : Optional.empty());
    }

    /**
     * The batcher's cut log, with the cuts topic's end now as a fresh job's start (like the
     * feedback source's): its failed attempts find each other's cuts, never an earlier job's.
     */
    private static CutLog cutLog(Configuration conf, KafkaConnection kafka) {
        if (!conf.get(TrainingOptions.IDLE_CUT_LOG)) {
            return CutLog.off();
        }
        String topic = TrainingOptions.cutsTopic(conf);
        try (KafkaProgress progress = new KafkaProgress(kafka)) {
            Map<Integer, Long> start = new HashMap<>();
            progress.endOffsets(topic).forEach((tp, offset) -> start.put(tp.partition(), offset));
            return CutLog.on(kafka, topic, start);
        } catch (Exception e) {
            LOG.warn("cannot read the cuts topic {} ({}): idle batches wait for a checkpoint. Create it (the job creates"
                    + " its topics when it may) or set {} to false", topic, e.toString(), TrainingOptions.IDLE_CUT_LOG.key());
            return CutLog.off();
        }
    }

    private static Map<Integer, Long> stopOffsets(Configuration conf) {
        return conf.getOptional(TrainingOptions.STOP_OFFSETS).map(TrainingOptions::partitionOffsets).orElse(Map.of());
    }

    /**
     * One uid per range end: a backfill that continues an earlier one's savepoint must not take
     * over that source's positions (it read on past its range); its state is left unclaimed.
     */
    static String backfillSourceUid(Map<Integer, Long> stop) {
        return BACKFILL_SOURCE_UID + "-" + Integer.toHexString(new java.util.TreeMap<>(stop).toString().hashCode());
    }

    private static Map<TopicPartition, Long> topicPartitions(String topic, Map<Integer, Long> offsets) {
        Map<TopicPartition, Long> result = new HashMap<>();
        offsets.forEach((p, o) -> result.put(new TopicPartition(topic, p), o));
        return result;
    }

    /** What the job's checkpoints hold, as export and score read it ({@link ModelInfo#FILE} beside them). */
    public static ModelInfo modelInfo(ReadableConfig conf) {
        ModelShape shape = TrainingOptions.shape(conf);
        return new ModelInfo(
                conf.get(TrainingOptions.NAME),
                conf.get(TrainingOptions.TOPIC),
                conf.get(TrainingOptions.MODEL).toString(),
                conf.get(PsOptions.DIM),
                conf.get(PsOptions.OPTIMIZER).toString(),
                conf.getOptional(PsOptions.ROW_TTL).map(Duration::toMillis).orElse(0L),
                conf.get(PipelineOptions.MAX_PARALLELISM),
                shape.fields(),
                shape.hidden(),
                shape.crossLayers());
    }

    public static String jobName(Configuration conf) {
        return ModelInfo.jobName(conf.get(TrainingOptions.NAME));
    }

    /** A source's consumer properties when it reads what transactions wrote: only committed records. */
    public static Properties readCommitted(KafkaConnection kafka) {
        return kafka.client().require(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed").properties();
    }

    private static OffsetsInitializer startingOffsets(Configuration conf, String topic) {
        Optional<Map<String, String>> explicit = conf.getOptional(TrainingOptions.START_OFFSETS);
        if (explicit.isPresent()) {
            return OffsetsInitializer.offsets(
                    topicPartitions(topic, TrainingOptions.partitionOffsets(explicit.get())), OffsetResetStrategy.EARLIEST);
        }
        return conf.get(TrainingOptions.START_FROM).offsets();
    }
}
