package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.kafka.Topics;
import io.streamtrain.serve.ModelFollower;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.BackfillRange;
import io.streamtrain.train.run.BackfillRun;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs whose principals have exactly the ACLs docs/security.md lists for them, and may not create
 * topics, on topics an operator pre-created: a training job trains exactly once across an injected
 * failure, publishing model updates, which {@code serve --follow} reads as a principal allowed only
 * to read that topic; a backfill trains its range exactly once; a topic that was not pre-created is
 * named, not waited for. (The joiner's: {@code RestrictedJoinIT}.)
 */
class RestrictedPrincipalIT {
    private final KafkaFixture kafka = KafkaFixture.secured();
    private final LocalKafka broker = kafka.secureBroker();

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aJobWithTheDocumentedAclsTrainsOnPreCreatedTopicsExactlyOnce(@TempDir Path dir) throws Exception {
        String topic = "restricted-" + System.nanoTime();
        Path checkpoints = dir.resolve("checkpoints");
        Configuration conf = TestExamples.oracleJob(broker.bootstrapServers(), topic);
        conf.set(TrainingOptions.MODEL_UPDATES_TOPIC, topic + ".updates");
        conf.set(TrainingOptions.INJECT_FAILURE_AFTER, 600L);
        conf.set(TopicOptions.MIN_INSYNC_REPLICAS, 1);
        preCreate(conf, topic);
        TestExamples examples = new TestExamples(11);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 2_000);
        }

        KafkaConnection job = RestrictedPrincipal.create(broker, "job", RestrictedPrincipal.trainingJob(topic, topic), topic);
        conf.set(TrainingOptions.KAFKA_PROPERTIES, job.clientProperties());
        TrainingSummary summary = TrainingRun.run(new TrainingRun.Settings(conf, checkpoints, 2, Duration.ofMillis(500),
                Duration.ofSeconds(5), true, System.err));
        assertEquals(2_000, summary.records(), summary.line());
        assertTrue(summary.restarts() >= 1, "the injected failure restarted the job: " + summary.line());
        examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints)));

        KafkaException refused = assertThrows(KafkaException.class, () -> Topics.ensure(job, Map.of(topic + ".not-pre-created", 1)));
        assertTrue(refused.getMessage().contains("does not exist, and this principal may not create it"), refused.getMessage());

        followsTheUpdatesWithTheServingAcls(topic + ".updates", checkpoints, dir);
    }

    /** {@code serve --follow}'s principal: Read, Describe on the model-updates topic, and nothing else (no group). */
    private void followsTheUpdatesWithTheServingAcls(String updates, Path checkpoints, Path dir) throws Exception {
        KafkaConnection serving = RestrictedPrincipal.create(broker, "serving",
                RestrictedPrincipal.allow(ResourceType.TOPIC, updates, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE), updates);
        KafkaPreflight.check(serving);
        Path bundle = dir.resolve("bundle");
        BundleWriter.write(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints),
                ModelCard.FeatureMapping.of(null, ParseOptions.DEFAULT_HASH_BITS), bundle, System.err, 1_000);
        try (Bundle store = Bundle.openStore(bundle, dir.resolve("store"));
                ModelFollower follower = new ModelFollower(serving, updates, store)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!follower.caughtUp() && follower.failure() == null && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertNull(follower.failure(), "the follower read the updates with Read, Describe only");
            assertTrue(follower.caughtUp(), "caught up: " + follower.status());
            assertTrue(follower.updatesApplied() > 0, "the job's updates were applied: " + follower.status());
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aBackfillWithTheDocumentedAclsTrainsItsRangeExactlyOnce(@TempDir Path dir) throws Exception {
        String topic = "restricted-backfill-" + System.nanoTime();
        Configuration conf = TestExamples.oracleJob(broker.bootstrapServers(), topic);
        conf.set(TopicOptions.MIN_INSYNC_REPLICAS, 1);
        preCreate(conf, topic);
        TestExamples examples = new TestExamples(13);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 1_500);
        }
        KafkaConnection job = RestrictedPrincipal.create(broker, "backfill", RestrictedPrincipal.trainingJob(topic, topic), topic);
        conf.set(TrainingOptions.KAFKA_PROPERTIES, job.clientProperties());
        Path out = dir.resolve("backfill");
        TrainingSummary summary = BackfillRun.run(new BackfillRun.Settings(
                new TrainingRun.Settings(conf, dir.resolve("unused"), 2, Duration.ofMillis(500), null, true, System.err),
                BackfillRange.Bound.ofTime("earliest"), BackfillRange.Bound.ofTime("latest"), null, out));
        assertEquals(1_500, summary.records(), summary.line());
        examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(out), ModelInfo.read(out)));
    }

    /** The operator's part: every topic of the job (docs/security.md, "Pre-creating the topics"). */
    private void preCreate(Configuration conf, String topic) {
        try (Admin admin = Topics.admin(broker.adminConnection())) {
            List<NewTopic> topics = new ArrayList<>(TopicOptions.jobTopics(conf));
            topics.add(new NewTopic(topic, 2, (short) -1));
            Topics.ensure(admin, topics);
        }
    }
}
