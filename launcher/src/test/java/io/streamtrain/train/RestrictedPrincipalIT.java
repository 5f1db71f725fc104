package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.kafka.Topics;
import io.streamtrain.testing.KafkaFixture;
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
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A training job whose principal has exactly the ACLs docs/security.md lists for it, and may not
 * create topics: with its topics pre-created by an operator, it trains exactly once across an
 * injected failure, publishing model updates; a topic that was not pre-created is named, not
 * waited for.
 */
class RestrictedPrincipalIT {
    private final KafkaFixture kafka = KafkaFixture.secured();
    private final LocalKafka broker = kafka.secureBroker();

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aJobWithTheDocumentedAclsTrainsOnPreCreatedTopicsExactlyOnce(@TempDir Path checkpoints) throws Exception {
        String topic = "restricted-" + System.nanoTime();
        String name = topic;
        String user = "job-" + System.nanoTime();
        String password = "pw-" + System.nanoTime();
        KafkaConnection operator = broker.adminConnection();

        Configuration conf = TestExamples.oracleJob(broker.bootstrapServers(), topic);
        conf.set(TrainingOptions.MODEL_UPDATES_TOPIC, topic + ".updates");
        conf.set(TrainingOptions.INJECT_FAILURE_AFTER, 600L);
        conf.set(TopicOptions.MIN_INSYNC_REPLICAS, 1);
        // The operator's part: the user, its ACLs, and every topic of the job (docs/security.md).
        try (Admin admin = Topics.admin(operator)) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(documentedAcls("User:" + user, topic, name)).all().get(30, TimeUnit.SECONDS);
            List<NewTopic> topics = new ArrayList<>(TopicOptions.jobTopics(conf));
            topics.add(new NewTopic(topic, 2, (short) -1));
            Topics.ensure(admin, topics);
        }
        TestExamples examples = new TestExamples(11);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            examples.produce(producer, topic, 2_000);
        }

        KafkaConnection job = broker.saslConnection(user, password);
        awaitAclsApplied(job, topic);
        conf.set(TrainingOptions.KAFKA_PROPERTIES, job.clientProperties());
        TrainingSummary summary = TrainingRun.run(new TrainingRun.Settings(conf, checkpoints, 2, Duration.ofMillis(500),
                Duration.ofSeconds(5), true, System.err));
        assertEquals(2_000, summary.records(), summary.line());
        assertTrue(summary.restarts() >= 1, "the injected failure restarted the job: " + summary.line());
        examples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints)));

        KafkaException refused = assertThrows(KafkaException.class, () -> Topics.ensure(job, Map.of(topic + ".not-pre-created", 1)));
        assertTrue(refused.getMessage().contains("does not exist, and this principal may not create it"), refused.getMessage());
    }

    /** The ACLs of docs/security.md ("The job's principal") for a training job on {@code topic} named {@code name}. */
    static List<AclBinding> documentedAcls(String principal, String topic, String name) {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op : List.of(AclOperation.READ, AclOperation.DESCRIBE)) {
            acls.add(allow(principal, ResourceType.TOPIC, topic, PatternType.LITERAL, op));
        }
        for (AclOperation op : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE)) {
            acls.add(allow(principal, ResourceType.TOPIC, topic + ".", PatternType.PREFIXED, op));
        }
        for (AclOperation op : List.of(AclOperation.READ, AclOperation.DESCRIBE)) {
            acls.add(allow(principal, ResourceType.GROUP, name + "-", PatternType.PREFIXED, op));
        }
        for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.DESCRIBE)) {
            acls.add(allow(principal, ResourceType.TRANSACTIONAL_ID, name + "-", PatternType.PREFIXED, op));
        }
        return acls;
    }

    private static AclBinding allow(String principal, ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern), new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
    }

    /** The broker applies a new user and ACLs from its metadata log shortly after they were committed. */
    private static void awaitAclsApplied(KafkaConnection job, String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Admin admin = Topics.admin(job)) {
            while (true) {
                try {
                    if (admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(topic)) {
                        return;
                    }
                } catch (Exception e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(topic + " not visible to the job's principal within 30 s");
                }
                Thread.sleep(200);
            }
        }
    }
}
