package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.kafka.KafkaAuthorizationSimple;
import io.strimzi.api.kafka.model.kafka.listener.KafkaListenerAuthenticationScramSha512;
import io.strimzi.api.kafka.model.kafka.listener.KafkaListenerAuthenticationTls;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import io.strimzi.api.kafka.model.user.acl.AclOperation;
import io.strimzi.api.kafka.model.user.acl.AclResourcePatternType;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleClusterResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleGroupResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTransactionalIdResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleType;
import io.strimzi.api.kafka.model.kafka.listener.GenericKafkaListener;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.nodepool.ProcessRoles;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.streamtrain.train.TopicOptions;
import io.streamtrain.train.TrainingOptions;
import org.apache.kafka.clients.admin.NewTopic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Strimzi's Kafka in KRaft mode, its topics, and the topics and brokers the training jobs use. */
class K8sStrimziTest {
    static final String CLUSTER_LABEL = "strimzi.io/cluster";

    static List<Rendered> renders() {
        return Rendered.all();
    }

    private static Kafka kafka(Rendered r) {
        List<JsonNode> all = r.ofKind("Kafka");
        assertEquals(1, all.size(), r.toString());
        return (Kafka) ResourceKinds.bind(all.get(0));
    }

    private static int brokers(Rendered r) {
        return r.ofKind("KafkaNodePool").stream().map(p -> (KafkaNodePool) ResourceKinds.bind(p))
                .filter(p -> p.getSpec().getRoles().contains(ProcessRoles.BROKER))
                .mapToInt(p -> p.getSpec().getReplicas()).sum();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void kafkaRunsInKraftModeOnNodePoolsWithControllersAndBrokers(Rendered r) {
        Kafka kafka = kafka(r);
        Map<String, String> annotations = kafka.getMetadata().getAnnotations();
        assertEquals("enabled", annotations.get("strimzi.io/kraft"));
        assertEquals("enabled", annotations.get("strimzi.io/node-pools"));
        assertTrue(kafka.getSpec().getEntityOperator().getTopicOperator() != null, "KafkaTopics need the topic operator");
        boolean controllers = false;
        for (JsonNode doc : r.ofKind("KafkaNodePool")) {
            KafkaNodePool pool = (KafkaNodePool) ResourceKinds.bind(doc);
            assertEquals(kafka.getMetadata().getName(), pool.getMetadata().getLabels().get(CLUSTER_LABEL));
            assertTrue(pool.getSpec().getStorage() != null && pool.getSpec().getReplicas() >= 1);
            controllers |= pool.getSpec().getRoles().contains(ProcessRoles.CONTROLLER);
        }
        assertTrue(controllers && brokers(r) >= 1, r + ": needs controllers and brokers");
        Map<String, Object> config = kafka.getSpec().getKafka().getConfig();
        for (String factor : List.of("default.replication.factor", "offsets.topic.replication.factor",
                "transaction.state.log.replication.factor")) {
            assertTrue(((Number) config.get(factor)).intValue() <= brokers(r), r + ": " + factor);
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void topicsBelongToTheClusterAndFitItsBrokers(Rendered r) {
        for (JsonNode doc : r.ofKind("KafkaTopic")) {
            KafkaTopic topic = (KafkaTopic) ResourceKinds.bind(doc);
            String what = r + ": " + topic.getMetadata().getName();
            assertEquals(kafka(r).getMetadata().getName(), topic.getMetadata().getLabels().get(CLUSTER_LABEL), what);
            assertTrue(topic.getSpec().getPartitions() >= 1, what);
            assertTrue(topic.getSpec().getReplicas() <= brokers(r), what);
            Object minIsr = topic.getSpec().getConfig().get("min.insync.replicas");
            assertTrue(((Number) minIsr).intValue() <= topic.getSpec().getReplicas(), what);
        }
    }

    /** The topic names come from the project's own TrainingOptions, defaults included. */
    @ParameterizedTest
    @MethodSource("renders")
    void everyTrainingJobFindsItsTopicsAndTheFeedbackPartitionsMatch(Rendered r) {
        for (JsonNode doc : r.flinkResources()) {
            Configuration conf = Configuration.fromMap(Rendered.flinkConfiguration(doc));
            if (!conf.contains(TrainingOptions.TOPIC)) {
                continue;
            }
            String what = r + ": " + ResourceKinds.describe(doc);
            List<String> topics = new ArrayList<>(TopicOptions.jobTopics(conf).stream().map(NewTopic::name).toList());
            topics.add(conf.get(TrainingOptions.TOPIC));
            for (String topic : topics) {
                assertTrue(r.has("KafkaTopic", topic), what + ": no KafkaTopic " + topic);
            }
            int feedbackPartitions = r.get("KafkaTopic", TrainingOptions.feedbackTopic(conf)).path("spec").path("partitions").asInt();
            assertEquals(conf.get(TrainingOptions.FEEDBACK_PARTITIONS), feedbackPartitions,
                    what + ": pushes are routed by key group mod streamtrain.train.feedback-partitions");
            int parallelism = doc.path("spec").path("job").path("parallelism").asInt();
            assertTrue(parallelism <= feedbackPartitions, what);
        }
    }

    /**
     * Each training job reaches a listener of the cluster with the security that listener asks for:
     * none on a plain one, SASL_SSL with SCRAM-SHA-512 on a SCRAM one, SSL on a TLS one, trusting the
     * cluster CA; and with a password or certificate only through a file a pod mounts.
     */
    @ParameterizedTest
    @MethodSource("renders")
    void everyTrainingJobConnectsToAListenerWithTheSecurityItAsksFor(Rendered r) {
        Kafka kafka = kafka(r);
        for (JsonNode doc : r.flinkResources()) {
            Configuration conf = Configuration.fromMap(Rendered.flinkConfiguration(doc));
            if (!conf.contains(TrainingOptions.TOPIC)) {
                continue;
            }
            String what = r + ": " + ResourceKinds.describe(doc);
            String bootstrap = conf.get(TrainingOptions.BOOTSTRAP);
            String host = bootstrap.substring(0, bootstrap.lastIndexOf(':'));
            int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
            String service = kafka.getMetadata().getName() + "-kafka-bootstrap";
            assertTrue(host.equals(service) || host.startsWith(service + "." + kafka.getMetadata().getNamespace() + "."), what + ": " + bootstrap);
            List<GenericKafkaListener> listeners = kafka.getSpec().getKafka().getListeners().stream().filter(l -> l.getPort() == port).toList();
            assertEquals(1, listeners.size(), what + ": no listener on " + port);
            GenericKafkaListener listener = listeners.get(0);
            Map<String, String> client = conf.getOptional(TrainingOptions.KAFKA_PROPERTIES).orElse(Map.of());
            String protocol = client.getOrDefault("security.protocol", "PLAINTEXT");
            if (listener.getAuth() instanceof KafkaListenerAuthenticationScramSha512) {
                assertEquals("SASL_SSL", protocol, what);
                assertEquals("SCRAM-SHA-512", client.get("sasl.mechanism"), what);
                assertTrue(client.get("sasl.jaas.config").startsWith("${dir:" + MOUNTS), what + ": the password comes from a mounted secret");
            } else if (listener.getAuth() instanceof KafkaListenerAuthenticationTls) {
                assertEquals("SSL", protocol, what);
                assertTrue(client.containsKey("ssl.keystore.location"), what);
            } else {
                assertEquals(listener.isTls() ? "SSL" : "PLAINTEXT", protocol, what);
            }
            if (listener.isTls()) {
                assertEquals("PEM", client.get("ssl.truststore.type"), what);
                String ca = client.get("ssl.truststore.location");
                assertEquals(kafka.getMetadata().getName() + "-cluster-ca-cert", mountedSecret(r, doc, ca.substring(0, ca.lastIndexOf('/'))),
                        what + ": trusts the cluster CA");
            }
        }
    }

    /** Production: no client gets in without authenticating, and ACLs decide what it may do. */
    @Test
    void inProductionEveryListenerAuthenticatesAndTheClusterAuthorizes() {
        Rendered r = Rendered.of(ManifestTree.overlay("production"));
        Kafka kafka = kafka(r);
        for (GenericKafkaListener l : kafka.getSpec().getKafka().getListeners()) {
            assertTrue(l.isTls() && l.getAuth() != null, "listener " + l.getName() + " is TLS with authentication");
        }
        assertTrue(kafka.getSpec().getKafka().getAuthorization() instanceof KafkaAuthorizationSimple, "ACLs are enforced");
    }

    /**
     * The KafkaUser whose secret a training job's pods mount allows what the job does, as
     * docs/security.md lists it: read its topic, read and write its own topics, read its consumer
     * groups, write its transactional ids; and nothing on the cluster (its topics are KafkaTopics).
     */
    @ParameterizedTest
    @MethodSource("renders")
    void everyTrainingJobsKafkaUserAllowsItsTopicsGroupsAndTransactionalIds(Rendered r) {
        for (JsonNode doc : r.flinkResources()) {
            Configuration conf = Configuration.fromMap(Rendered.flinkConfiguration(doc));
            Map<String, String> client = conf.getOptional(TrainingOptions.KAFKA_PROPERTIES).orElse(Map.of());
            if (!conf.contains(TrainingOptions.TOPIC) || !client.containsKey("sasl.jaas.config")) {
                continue;
            }
            String what = r + ": " + ResourceKinds.describe(doc);
            String jaas = client.get("sasl.jaas.config");
            String dir = jaas.substring("${dir:".length(), jaas.lastIndexOf(':'));
            KafkaUser user = (KafkaUser) ResourceKinds.bind(r.get("KafkaUser", mountedSecret(r, doc, dir)));
            assertTrue(user.getSpec().getAuthentication() instanceof KafkaUserScramSha512ClientAuthentication, what);
            List<AclRule> acls = ((KafkaUserAuthorizationSimple) user.getSpec().getAuthorization()).getAcls();
            String topic = conf.get(TrainingOptions.TOPIC);
            String name = conf.get(TrainingOptions.NAME);
            assertAllowed(acls, "topic", topic, List.of(AclOperation.READ, AclOperation.DESCRIBE), what);
            for (NewTopic own : TopicOptions.jobTopics(conf)) {
                assertAllowed(acls, "topic", own.name(), List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE), what);
            }
            for (String group : List.of(TrainingOptions.examplesGroup(conf), TrainingOptions.feedbackGroup(conf), TrainingOptions.backfillGroup(conf))) {
                assertAllowed(acls, "group", group, List.of(AclOperation.READ, AclOperation.DESCRIBE), what);
            }
            for (String sink : List.of("-dlq", "-updates")) {
                assertAllowed(acls, "transactionalId", name + sink + "-0", List.of(AclOperation.WRITE, AclOperation.DESCRIBE), what);
            }
            assertTrue(acls.stream().noneMatch(a -> a.getResource() instanceof AclRuleClusterResource), what + ": no cluster rights");
        }
    }

    private static final String MOUNTS = "/opt/streamtrain/";

    private static void assertAllowed(List<AclRule> acls, String type, String name, List<AclOperation> operations, String what) {
        for (AclOperation op : operations) {
            boolean allowed = acls.stream().anyMatch(a -> a.getType() != AclRuleType.DENY && covers(a.getResource(), type, name)
                    && (a.getOperations().contains(op) || a.getOperations().contains(AclOperation.ALL)));
            assertTrue(allowed, what + ": " + op + " on " + type + " " + name);
        }
    }

    private static boolean covers(AclRuleResource resource, String type, String name) {
        if (!resource.getType().equals(type)) {
            return false;
        }
        String pattern;
        AclResourcePatternType patternType;
        if (resource instanceof AclRuleTopicResource t) {
            pattern = t.getName();
            patternType = t.getPatternType();
        } else if (resource instanceof AclRuleGroupResource g) {
            pattern = g.getName();
            patternType = g.getPatternType();
        } else if (resource instanceof AclRuleTransactionalIdResource x) {
            pattern = x.getName();
            patternType = x.getPatternType();
        } else {
            return false;
        }
        return patternType == AclResourcePatternType.PREFIX ? name.startsWith(pattern) : name.equals(pattern) || "*".equals(pattern);
    }

    /** The secret mounted at {@code dir} in the pods that run {@code flinkResource}'s job (a session job's: its session cluster's). */
    private static String mountedSecret(Rendered r, JsonNode flinkResource, String dir) {
        JsonNode deployment = flinkResource.path("kind").asText().equals("FlinkSessionJob")
                ? r.get("FlinkDeployment", flinkResource.path("spec").path("deploymentName").asText()) : flinkResource;
        JsonNode pod = deployment.path("spec").path("podTemplate").path("spec");
        String volume = null;
        for (JsonNode mount : pod.path("containers").path(0).path("volumeMounts")) {
            if (mount.path("mountPath").asText().equals(dir)) {
                volume = mount.path("name").asText();
            }
        }
        assertTrue(volume != null, r + ": " + ResourceKinds.describe(deployment) + " mounts nothing at " + dir);
        for (JsonNode v : pod.path("volumes")) {
            if (v.path("name").asText().equals(volume)) {
                return v.path("secret").path("secretName").asText();
            }
        }
        throw new AssertionError(r + ": no volume " + volume);
    }

    @Test
    void aMisspeltKafkaFieldFails() {
        JsonNode doc = Yaml.single("""
                apiVersion: kafka.strimzi.io/v1beta2
                kind: Kafka
                metadata: {name: typo}
                spec:
                  kafka:
                    listners: []
                """);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResourceKinds.bind(doc));
        assertTrue(e.getMessage().contains("listners"), e.getMessage());
    }
}
