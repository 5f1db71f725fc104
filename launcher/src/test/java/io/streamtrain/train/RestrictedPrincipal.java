package io.streamtrain.train;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * A principal of the secured local broker with exactly the ACLs a test gives it (those of
 * docs/security.md), as an operator would create it: a SCRAM user, its ACLs, nothing else.
 */
public final class RestrictedPrincipal {
    private RestrictedPrincipal() {}

    /**
     * Creates a new SCRAM user with {@code acls} (their principal is replaced by the new user's) and
     * returns its connection, once the broker knows the user and shows it {@code visibleTopic}.
     */
    public static KafkaConnection create(LocalKafka broker, String prefix, List<AclBinding> acls, String visibleTopic) throws Exception {
        String user = prefix + "-" + System.nanoTime();
        String password = "pw-" + System.nanoTime();
        List<AclBinding> own = new ArrayList<>();
        acls.forEach(a -> own.add(new AclBinding(a.pattern(), new AccessControlEntry("User:" + user, "*", a.entry().operation(),
                AclPermissionType.ALLOW))));
        try (Admin admin = Topics.admin(broker.adminConnection())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(own).all().get(30, TimeUnit.SECONDS);
        }
        KafkaConnection connection = broker.saslConnection(user, password);
        awaitVisible(connection, visibleTopic);
        return connection;
    }

    /** Allows {@code operations} on a resource (the principal is set by {@link #create}). */
    public static List<AclBinding> allow(ResourceType type, String name, PatternType pattern, AclOperation... operations) {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op : operations) {
            acls.add(new AclBinding(new ResourcePattern(type, name, pattern), new AccessControlEntry("User:?", "*", op, AclPermissionType.ALLOW)));
        }
        return acls;
    }

    /** The ACLs of docs/security.md ("The job's principal") for a training job (or backfill) on {@code topic} named {@code name}. */
    public static List<AclBinding> trainingJob(String topic, String name) {
        List<AclBinding> acls = new ArrayList<>();
        acls.addAll(allow(ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE));
        acls.addAll(allow(ResourceType.TOPIC, topic + ".", PatternType.PREFIXED, AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE));
        acls.addAll(allow(ResourceType.GROUP, name + "-", PatternType.PREFIXED, AclOperation.READ, AclOperation.DESCRIBE));
        acls.addAll(allow(ResourceType.TRANSACTIONAL_ID, name + "-", PatternType.PREFIXED, AclOperation.WRITE, AclOperation.DESCRIBE));
        return acls;
    }

    /** The broker applies a new user and ACLs from its metadata log shortly after they were committed. */
    private static void awaitVisible(KafkaConnection principal, String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Admin admin = Topics.admin(principal)) {
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
                    throw new AssertionError(topic + " not visible to the principal within 30 s");
                }
                Thread.sleep(200);
            }
        }
    }
}
