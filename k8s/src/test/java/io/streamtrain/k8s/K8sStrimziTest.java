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
import io.streamtrain.join.JoinOptions;
import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.train.TopicOptions;
import io.streamtrain.train.TrainingOptions;
import org.apache.kafka.clients.admin.NewTopic;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Properties;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Strimzi's Kafka in KRaft mode, its topics, and the topics, brokers and ACLs its clients (jobs, joiners, scoring) use. */
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

    /** What a Kafka client must be allowed to do on one resource. */
    private record Need(String type, String name, List<AclOperation> operations) {}

    /**
     * A workload that talks to Kafka: the address it connects to, its client properties, the pod
     * spec that mounts their files, and what its principal must be allowed to do.
     */
    private record KafkaClient(String what, String bootstrap, Map<String, String> properties, JsonNode pod, List<Need> needs) {}

    private static final List<AclOperation> READ = List.of(AclOperation.READ, AclOperation.DESCRIBE);
    private static final List<AclOperation> WRITE = List.of(AclOperation.WRITE, AclOperation.DESCRIBE);

    /** Every Flink job that connects to Kafka (trainers, backfills, joiners) and the scoring Deployment. */
    private static List<KafkaClient> kafkaClients(Rendered r) {
        List<KafkaClient> clients = new ArrayList<>();
        for (JsonNode doc : r.flinkResources()) {
            Configuration conf = Configuration.fromMap(Rendered.flinkConfiguration(doc));
            if (!conf.contains(TrainingOptions.BOOTSTRAP)) {
                continue;
            }
            String what = r + ": " + ResourceKinds.describe(doc);
            List<Need> needs;
            if (conf.contains(TrainingOptions.TOPIC)) {
                needs = trainingNeeds(conf);
            } else if (conf.contains(JoinOptions.OUT_TOPIC)) {
                needs = joinNeeds(conf);
            } else {
                throw new AssertionError(what + ": connects to Kafka, but is neither a training job nor a joiner");
            }
            JsonNode deployment = doc.path("kind").asText().equals("FlinkSessionJob")
                    ? r.get("FlinkDeployment", doc.path("spec").path("deploymentName").asText()) : doc;
            clients.add(new KafkaClient(what, conf.get(TrainingOptions.BOOTSTRAP),
                    conf.getOptional(TrainingOptions.KAFKA_PROPERTIES).orElse(Map.of()),
                    deployment.path("spec").path("podTemplate").path("spec"), needs));
        }
        JsonNode serving = r.get("Deployment", K8sServingTest.SERVING);
        CommandLine.ParseResult args = K8sServingTest.serveArgs(K8sServingTest.serve(K8sServingTest.deployment(r)));
        JsonNode pod = serving.path("spec").path("template").path("spec");
        Path file = args.matchedOptionValue(KafkaClientProperties.OPTION, null);
        String what = r + ": " + ResourceKinds.describe(serving);
        clients.add(new KafkaClient(what, args.matchedOptionValue("--bootstrap", ""),
                file == null ? Map.of() : mountedProperties(r, pod, file, what), pod,
                List.of(new Need("topic", args.matchedOptionValue("--follow", ""), READ))));
        return clients;
    }

    /** A training job's: read its topic, read and write its own topics, read its groups, write its transactional ids. */
    private static List<Need> trainingNeeds(Configuration conf) {
        List<Need> needs = new ArrayList<>(List.of(new Need("topic", conf.get(TrainingOptions.TOPIC), READ)));
        for (NewTopic own : TopicOptions.jobTopics(conf)) {
            needs.add(new Need("topic", own.name(), List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE)));
        }
        for (String group : List.of(TrainingOptions.examplesGroup(conf), TrainingOptions.feedbackGroup(conf), TrainingOptions.backfillGroup(conf))) {
            needs.add(new Need("group", group, READ));
        }
        for (String sink : List.of("-dlq", "-updates")) {
            needs.add(new Need("transactionalId", conf.get(TrainingOptions.NAME) + sink + "-0", WRITE));
        }
        return needs;
    }

    /** A joiner's (JoinJob): read impressions and clicks, write the training topic and its dead letters. */
    private static List<Need> joinNeeds(Configuration conf) {
        String name = conf.get(JoinOptions.NAME);
        return List.of(new Need("topic", conf.get(JoinOptions.IMPRESSIONS_TOPIC), READ),
                new Need("topic", conf.get(JoinOptions.CLICKS_TOPIC), READ),
                new Need("topic", conf.get(JoinOptions.OUT_TOPIC), WRITE),
                new Need("topic", JoinOptions.deadLetterTopic(conf), WRITE),
                new Need("group", JoinOptions.impressionsGroup(conf), READ),
                new Need("group", JoinOptions.clicksGroup(conf), READ),
                new Need("transactionalId", name + "-out-0", WRITE),
                new Need("transactionalId", name + "-dlq-0", WRITE));
    }

    /**
     * Each Kafka client reaches a listener of the cluster with the security that listener asks for:
     * none on a plain one, SASL_SSL with SCRAM-SHA-512 on a SCRAM one, SSL on a TLS one, trusting the
     * cluster CA; and with a password or certificate only through a file a pod mounts.
     */
    @ParameterizedTest
    @MethodSource("renders")
    void everyKafkaClientConnectsToAListenerWithTheSecurityItAsksFor(Rendered r) {
        Kafka kafka = kafka(r);
        for (KafkaClient c : kafkaClients(r)) {
            String what = c.what();
            String bootstrap = c.bootstrap();
            String host = bootstrap.substring(0, bootstrap.lastIndexOf(':'));
            int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
            String service = kafka.getMetadata().getName() + "-kafka-bootstrap";
            assertTrue(host.equals(service) || host.startsWith(service + "." + kafka.getMetadata().getNamespace() + "."), what + ": " + bootstrap);
            List<GenericKafkaListener> listeners = kafka.getSpec().getKafka().getListeners().stream().filter(l -> l.getPort() == port).toList();
            assertEquals(1, listeners.size(), what + ": no listener on " + port);
            GenericKafkaListener listener = listeners.get(0);
            Map<String, String> client = c.properties();
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
                assertEquals(kafka.getMetadata().getName() + "-cluster-ca-cert", mountedSecret(c.pod(), ca.substring(0, ca.lastIndexOf('/')), what),
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
     * The KafkaUser whose secret a Kafka client's pods mount allows what the client does, as
     * docs/security.md lists it (a training job: read its topic, read and write its own topics, read
     * its consumer groups, write its transactional ids; a joiner: read impressions and clicks, write
     * the training topic; scoring: read the model updates); and nothing on the cluster (the topics
     * are KafkaTopics).
     */
    @ParameterizedTest
    @MethodSource("renders")
    void everyKafkaClientsKafkaUserAllowsItsTopicsGroupsAndTransactionalIds(Rendered r) {
        for (KafkaClient c : kafkaClients(r)) {
            String jaas = c.properties().get("sasl.jaas.config");
            if (jaas == null) {
                continue;
            }
            String what = c.what();
            String dir = jaas.substring("${dir:".length(), jaas.lastIndexOf(':'));
            KafkaUser user = (KafkaUser) ResourceKinds.bind(r.get("KafkaUser", mountedSecret(c.pod(), dir, what)));
            assertTrue(user.getSpec().getAuthentication() instanceof KafkaUserScramSha512ClientAuthentication, what);
            List<AclRule> acls = ((KafkaUserAuthorizationSimple) user.getSpec().getAuthorization()).getAcls();
            for (Need need : c.needs()) {
                assertAllowed(acls, need.type(), need.name(), need.operations(), what);
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

    /** The volume mounted at {@code dir} in the first container of {@code pod}. */
    private static JsonNode mountedVolume(JsonNode pod, String dir, String what) {
        String volume = null;
        for (JsonNode mount : pod.path("containers").path(0).path("volumeMounts")) {
            if (mount.path("mountPath").asText().equals(dir)) {
                volume = mount.path("name").asText();
            }
        }
        assertTrue(volume != null, what + ": its pods mount nothing at " + dir);
        for (JsonNode v : pod.path("volumes")) {
            if (v.path("name").asText().equals(volume)) {
                return v;
            }
        }
        throw new AssertionError(what + ": no volume " + volume);
    }

    /** The secret mounted at {@code dir} (a session job's: in its session cluster's pods). */
    private static String mountedSecret(JsonNode pod, String dir, String what) {
        return mountedVolume(pod, dir, what).path("secret").path("secretName").asText();
    }

    /** The Kafka client properties in {@code file}, a key of the ConfigMap mounted at its directory. */
    private static Map<String, String> mountedProperties(Rendered r, JsonNode pod, Path file, String what) {
        String configMap = mountedVolume(pod, file.getParent().toString(), what).path("configMap").path("name").asText();
        String text = r.get("ConfigMap", configMap).path("data").path(file.getFileName().toString()).asText();
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> properties = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> properties.put(k, p.getProperty(k)));
        return properties;
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
