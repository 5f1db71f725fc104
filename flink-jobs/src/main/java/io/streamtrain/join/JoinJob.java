package io.streamtrain.join;

import io.streamtrain.ingest.format.RecordDecoder;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.train.InputFormat;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.train.KafkaSinks;
import io.streamtrain.train.PromptCommitSource;
import io.streamtrain.train.TrainingJob;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.feedback.DeadLetterSerializer;
import java.io.IOException;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * Wires the joiner:
 * <pre>
 * impressions ─► decode, watermark per partition ─┐
 *                                                 ├─ keyBy impression id ─► joiner ─► examples (exactly once)
 * clicks      ─► decode, watermark per partition ─┘                           └──────► dead letters (exactly once)
 * </pre>
 * The joiner's watermark is the minimum over every partition of both topics, so a window closes
 * only once both streams have passed its end.
 */
public final class JoinJob {
    /** The names of the joiner's two inputs, in their operators' names and uids. */
    public static final String IMPRESSIONS = "impressions";
    public static final String CLICKS = "clicks";

    private JoinJob() {}

    public static void build(StreamExecutionEnvironment env, Configuration conf) throws IOException {
        KafkaConnection kafka = TrainingOptions.kafka(conf);
        String impressionsTopic = JoinOptions.require(conf, JoinOptions.IMPRESSIONS_TOPIC);
        String clicksTopic = JoinOptions.require(conf, JoinOptions.CLICKS_TOPIC);
        String outTopic = JoinOptions.require(conf, JoinOptions.OUT_TOPIC);
        FeatureMapping mapping = InputFormat.mapping(JoinOptions.MAPPING.key(), conf.get(JoinOptions.MAPPING));
        RecordDecoder impressionFormat = userFormat(conf, mapping, JoinOptions.IMPRESSIONS_SCHEMA);
        RecordDecoder clickFormat = userFormat(conf, mapping, JoinOptions.CLICKS_SCHEMA);

        SingleOutputStreamOperator<JoinEvent> impressions = readable(env, conf, source(conf, kafka, impressionsTopic,
                JoinOptions.impressionsGroup(conf), JoinEventDeserializer.impressions(impressionFormat)), IMPRESSIONS);
        SingleOutputStreamOperator<JoinEvent> clicks = readable(env, conf, source(conf, kafka, clicksTopic,
                JoinOptions.clicksGroup(conf), JoinEventDeserializer.clicks(clickFormat)), CLICKS);

        SingleOutputStreamOperator<JoinedExample> joined = impressions
                .keyBy(e -> e.impressionId, Types.STRING)
                .connect(clicks.keyBy(e -> e.impressionId, Types.STRING))
                .process(new ImpressionClickJoiner(
                        conf.get(JoinOptions.WINDOW).toMillis(),
                        JoinOptions.dedupRetention(conf).toMillis(),
                        new NegativeSampler(conf.get(JoinOptions.NEGATIVE_SAMPLING)),
                        mapping,
                        impressionFormat,
                        conf.get(JoinOptions.INJECT_FAILURE_AFTER)))
                .uid("streamtrain-joiner")
                .name("joiner");

        String name = conf.get(JoinOptions.NAME);
        joined.sinkTo(KafkaSinks.exactlyOnce(kafka, new JoinedExampleSerializer(outTopic), name + "-out"))
                .uid("streamtrain-join-sink")
                .name("examples-sink");

        impressions.getSideOutput(ReadableOnly.DEAD_LETTERS)
                .union(clicks.getSideOutput(ReadableOnly.DEAD_LETTERS), joined.getSideOutput(ImpressionClickJoiner.DEAD_LETTERS))
                .sinkTo(KafkaSinks.exactlyOnce(kafka, new DeadLetterSerializer(JoinOptions.deadLetterTopic(conf)), name + "-dlq"))
                .uid("streamtrain-join-dead-letter-sink")
                .name("dead-letter-sink");
    }

    /** The decoder of one topic in the user's own format; null for the project's Impression and Click records. */
    private static RecordDecoder userFormat(Configuration conf, FeatureMapping mapping, ConfigOption<String> schemaOption) {
        InputFormat format = conf.get(JoinOptions.INPUT_FORMAT);
        if (format == InputFormat.EXAMPLE) {
            return null;
        }
        if (mapping.idColumn() == null) {
            throw new IllegalArgumentException(JoinOptions.MAPPING.key() + " " + conf.get(JoinOptions.MAPPING)
                    + ": a join of " + format + " topics needs an \"id\" column, the impression id of impressions and clicks");
        }
        return format.decoder(mapping, schemaOption, conf.getOptional(schemaOption), JoinOptions.SCHEMA_REGISTRY_URL,
                conf.getOptional(JoinOptions.SCHEMA_REGISTRY_URL), conf.get(TrainingOptions.MAX_FEATURES));
    }

    private static KafkaSource<JoinEvent> source(Configuration conf, KafkaConnection kafka, String topic, String group,
            JoinEventDeserializer deserializer) {
        KafkaSourceBuilder<JoinEvent> b = KafkaSource.<JoinEvent>builder()
                .setProperties(TrainingJob.readCommitted(kafka))
                .setTopics(topic)
                .setGroupId(group)
                .setStartingOffsets(conf.get(JoinOptions.START_FROM).offsets())
                .setDeserializer(deserializer);
        if (conf.get(JoinOptions.UNTIL_END)) {
            b.setBounded(OffsetsInitializer.latest());
        } else {
            b.setProperty(KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(), "30000");
        }
        return b.build();
    }

    private static SingleOutputStreamOperator<JoinEvent> readable(StreamExecutionEnvironment env, Configuration conf,
            KafkaSource<JoinEvent> source, String name) {
        DataStream<JoinEvent> events = env.fromSource(new PromptCommitSource<>(source), watermarks(conf), name).uid(sourceUid(name));
        return events.process(new ReadableOnly()).uid("streamtrain-join-" + name + "-readable").name(name + "-readable");
    }

    /** Per-partition bounded out-of-orderness on event time; unreadable records carry no time and do not move it. */
    static WatermarkStrategy<JoinEvent> watermarks(Configuration conf) {
        WatermarkStrategy<JoinEvent> s = WatermarkStrategy.<JoinEvent>forBoundedOutOfOrderness(conf.get(JoinOptions.OUT_OF_ORDERNESS))
                .withTimestampAssigner((e, kafkaTimestamp) -> e.time);
        Duration idle = conf.get(JoinOptions.IDLE_TIMEOUT);
        return conf.get(JoinOptions.UNTIL_END) || idle.isZero() ? s : s.withIdleness(idle);
    }

    /** The uid of the source of {@link #IMPRESSIONS} or {@link #CLICKS}: a run reads its progress from their split state. */
    public static String sourceUid(String input) {
        return "streamtrain-join-" + input + "-source";
    }

    public static String jobName(Configuration conf) {
        return "streamtrain-join " + conf.get(JoinOptions.NAME);
    }
}
