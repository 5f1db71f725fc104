package io.streamtrain.train;

import io.streamtrain.kafka.KafkaClientConfig;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.ps.PsOptions;
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
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.kafka.clients.producer.ProducerConfig;

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
        KafkaConnection kafka = TrainingOptions.kafka(conf);
        String name = conf.get(TrainingOptions.NAME);
        // At-least-once is enough: the PS drops replayed pushes by (partition, batch sequence).
        // Uncompressed: gradients are floats, which lz4 hardly shrinks, and a new lz4 frame (two
        // 64 KB buffers) per producer batch was half of the worker thread in a profile.
        pushes.sinkTo(KafkaSinks.atLeastOnce(uncompressed(kafka).withDefault(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024), pushSerializer(conf)))
                .uid("streamtrain-feedback-sink")
                .name("feedback-sink");
        // Flow-control notices only (BatchCredits): a lost or repeated one changes pacing, not the model.
        // Uncompressed too: 16-byte records gain nothing from lz4.
        applied.sinkTo(KafkaSinks.atLeastOnce(uncompressed(kafka), new AppliedSerializer(TrainingOptions.appliedTopic(conf))))
                .uid("streamtrain-applied-sink")
                .name("applied-sink");
        metrics.sinkTo(KafkaSinks.atLeastOnce(KafkaSinks.producer(kafka), new MetricsSerializer(TrainingOptions.metricsTopic(conf))))
                .uid("streamtrain-metrics-sink")
                .name("metrics-sink");
        // Model updates are published at once, versioned, when a recovery cannot take them back:
        // the PS applies only pushes read from the feedback log, and a recovery applies the same
        // pushes again to the same rows, so a repeat carries the same row, version and weights and
        // the follower keeps each row's highest version (docs/ARCHITECTURE.md, "Exactly once").
        // Where a recovery may compute differently (versionedUpdates), they wait for their checkpoint.
        // Either way a task of its own: the PS's thread never waits on the broker.
        rowsChanged.ifPresent(rows -> rows
                .sinkTo(versionedUpdates(conf)
                        ? KafkaSinks.atLeastOnce(uncompressed(kafka), modelUpdateSerializer(conf, true))
                        : KafkaSinks.exactlyOnce(kafka, modelUpdateSerializer(conf, false), name + "-updates"))
                .uid("streamtrain-model-updates-sink")
                .name("model-updates-sink")
                .disableChaining());
        // The exactly-once sinks run as tasks of their own, not chained to the PS and the batcher:
        // a transactional writer blocks its task thread on the broker (initTransactions for every
        // checkpoint's transaction; aborting lingering transactions on restore), which would
        // otherwise stall the loop each checkpoint and delay the batcher's start after a rescale.
        // Dead letters are counted by users: exactly once, so a replay does not repeat them.
        deadLetters.sinkTo(KafkaSinks.exactlyOnce(kafka, new DeadLetterSerializer(TrainingOptions.deadLetterTopic(conf)), name + "-dlq"))
                .uid("streamtrain-dead-letter-sink")
                .name("dead-letter-sink")
                .disableChaining();
    }

    /** Every output as a Kafka record for its topic, for one exactly-once sink (see {@link KafkaSinks#exactlyOnce}). */
    public DataStream<Outgoing> asRecords(Configuration conf) {
        DataStream<Outgoing> all = Outgoing.of(pushes, pushSerializer(conf), "feedback-records")
                .union(Outgoing.of(applied, new AppliedSerializer(TrainingOptions.appliedTopic(conf)), "applied-records"),
                        Outgoing.of(metrics, new MetricsSerializer(TrainingOptions.metricsTopic(conf)), "metrics-records"),
                        Outgoing.of(deadLetters, new DeadLetterSerializer(TrainingOptions.deadLetterTopic(conf)), "dead-letter-records"));
        // Through the one transactional sink, updates arrive in commit order: unversioned, as checkpoint-bound ones.
        return rowsChanged.map(rows -> all.union(Outgoing.of(rows, modelUpdateSerializer(conf, false), "model-update-records"))).orElse(all);
    }

    private static KafkaClientConfig uncompressed(KafkaConnection kafka) {
        return KafkaSinks.producer(kafka).withDefault(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    }

    private static PushSerializer pushSerializer(Configuration conf) {
        return new PushSerializer(TrainingOptions.feedbackTopic(conf), conf.get(TrainingOptions.FEEDBACK_PARTITIONS));
    }

    private static ModelUpdateSerializer modelUpdateSerializer(Configuration conf, boolean versioned) {
        return new ModelUpdateSerializer(conf.get(TrainingOptions.MODEL_UPDATES_TOPIC), versioned);
    }

    /**
     * Whether the job's model updates are versioned and published at once: only when a recovery
     * computes every row as before. Not when rows expire ({@link PsOptions#ROW_TTL}: expiry follows
     * the wall clock).
     */
    static boolean versionedUpdates(Configuration conf) {
        return conf.getOptional(PsOptions.ROW_TTL).isEmpty();
    }
}
