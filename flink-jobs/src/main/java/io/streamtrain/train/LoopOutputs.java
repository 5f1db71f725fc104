package io.streamtrain.train;

import io.streamtrain.ps.message.PushApplied;
import io.streamtrain.ps.message.RowChanged;
import io.streamtrain.ps.message.Push;
import io.streamtrain.train.batch.Rejected;
import io.streamtrain.train.feedback.AppliedSerializer;
import io.streamtrain.train.feedback.DeadLetterSerializer;
import io.streamtrain.train.feedback.MetricsSerializer;
import io.streamtrain.train.feedback.ModelUpdateSerializer;
import io.streamtrain.train.feedback.Outgoing;
import io.streamtrain.train.feedback.PushSerializer;
import io.streamtrain.train.worker.WindowReport;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * What the training loop writes to Kafka: gradient pushes (feedback), applied notices (flow
 * control), metrics, dead letters and, when enabled, changed rows (model updates). A DataStream
 * job gives each its own sink ({@link #sinkEach}); a table sink must end in a single sink, so it
 * takes them as one stream of {@link Outgoing} records ({@link #asRecords}).
 */
public record LoopOutputs(
        DataStream<Push> pushes,
        DataStream<PushApplied> applied,
        DataStream<WindowReport> metrics,
        DataStream<Rejected> deadLetters,
        Optional<DataStream<RowChanged>> rowsChanged) {

    public void sinkEach(Configuration conf) {
        String bootstrap = conf.get(TrainingOptions.BOOTSTRAP);
        String name = conf.get(TrainingOptions.NAME);
        // At-least-once is enough: the PS drops replayed pushes by (partition, batch sequence).
        // Uncompressed: gradients are floats, which lz4 hardly shrinks, and a new lz4 frame (two
        // 64 KB buffers) per producer batch was half of the worker thread in a profile.
        Properties pushProducer = uncompressed();
        pushProducer.setProperty("batch.size", String.valueOf(256 * 1024));
        pushes.sinkTo(sink(bootstrap, pushSerializer(conf), DeliveryGuarantee.AT_LEAST_ONCE, null, pushProducer))
                .uid("streamtrain-feedback-sink")
                .name("feedback-sink");
        // Flow-control notices only (BatchCredits): a lost or repeated one changes pacing, not the model.
        // Uncompressed too: 16-byte records gain nothing from lz4.
        applied.sinkTo(sink(bootstrap, new AppliedSerializer(TrainingOptions.appliedTopic(conf)), DeliveryGuarantee.AT_LEAST_ONCE, null, uncompressed()))
                .uid("streamtrain-applied-sink")
                .name("applied-sink");
        metrics.sinkTo(sink(bootstrap, new MetricsSerializer(TrainingOptions.metricsTopic(conf)), DeliveryGuarantee.AT_LEAST_ONCE, null))
                .uid("streamtrain-metrics-sink")
                .name("metrics-sink");
        // The exactly-once sinks run as tasks of their own, not chained to the PS and the batcher:
        // a transactional writer blocks its task thread on the broker (initTransactions for every
        // checkpoint's transaction; aborting lingering transactions on restore), which would
        // otherwise stall the loop each checkpoint and delay the batcher's start after a rescale.
        // Exactly once: a follower sees a row's update only once its checkpoint completed, so
        // serving never shows an update that a recovery takes back.
        rowsChanged.ifPresent(rows -> rows
                .sinkTo(sink(bootstrap, modelUpdateSerializer(conf), DeliveryGuarantee.EXACTLY_ONCE, name + "-updates"))
                .uid("streamtrain-model-updates-sink")
                .name("model-updates-sink")
                .disableChaining());
        // Dead letters are counted by users: exactly once, so a replay does not repeat them.
        deadLetters.sinkTo(sink(bootstrap, new DeadLetterSerializer(TrainingOptions.deadLetterTopic(conf)), DeliveryGuarantee.EXACTLY_ONCE, name + "-dlq"))
                .uid("streamtrain-dead-letter-sink")
                .name("dead-letter-sink")
                .disableChaining();
    }

    /** Every output as a Kafka record for its topic, for one exactly-once sink (see {@link Outgoing#sink}). */
    public DataStream<Outgoing> asRecords(Configuration conf) {
        DataStream<Outgoing> all = Outgoing.of(pushes, pushSerializer(conf), "feedback-records")
                .union(Outgoing.of(applied, new AppliedSerializer(TrainingOptions.appliedTopic(conf)), "applied-records"),
                        Outgoing.of(metrics, new MetricsSerializer(TrainingOptions.metricsTopic(conf)), "metrics-records"),
                        Outgoing.of(deadLetters, new DeadLetterSerializer(TrainingOptions.deadLetterTopic(conf)), "dead-letter-records"));
        return rowsChanged.map(rows -> all.union(Outgoing.of(rows, modelUpdateSerializer(conf), "model-update-records"))).orElse(all);
    }

    private static Properties uncompressed() {
        Properties p = TrainingJob.producerProperties();
        p.setProperty("compression.type", "none");
        return p;
    }

    private static PushSerializer pushSerializer(Configuration conf) {
        return new PushSerializer(TrainingOptions.feedbackTopic(conf), conf.get(TrainingOptions.FEEDBACK_PARTITIONS));
    }

    private static ModelUpdateSerializer modelUpdateSerializer(Configuration conf) {
        return new ModelUpdateSerializer(conf.get(TrainingOptions.MODEL_UPDATES_TOPIC));
    }

    private static <T> KafkaSink<T> sink(String bootstrap, KafkaRecordSerializationSchema<T> serializer,
            DeliveryGuarantee guarantee, String transactionalIdPrefix) {
        return sink(bootstrap, serializer, guarantee, transactionalIdPrefix, guarantee == DeliveryGuarantee.EXACTLY_ONCE
                ? TrainingJob.transactionalProducerProperties() : TrainingJob.producerProperties());
    }

    private static <T> KafkaSink<T> sink(String bootstrap, KafkaRecordSerializationSchema<T> serializer,
            DeliveryGuarantee guarantee, String transactionalIdPrefix, Properties producer) {
        var builder = KafkaSink.<T>builder()
                .setBootstrapServers(bootstrap)
                .setRecordSerializer(serializer)
                .setDeliveryGuarantee(guarantee)
                .setKafkaProducerConfig(producer);
        if (transactionalIdPrefix != null) {
            builder.setTransactionalIdPrefix(transactionalIdPrefix);
        }
        return builder.build();
    }

}
