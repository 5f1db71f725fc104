package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.kafka.listener.GenericKafkaListener;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.nodepool.ProcessRoles;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.streamtrain.train.TrainingOptions;
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
            List<String> topics = new ArrayList<>(TrainingOptions.derivedTopics(conf).keySet());
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

    @ParameterizedTest
    @MethodSource("renders")
    void everyTrainingJobConnectsToAPlainListenerOfTheKafkaCluster(Rendered r) {
        Kafka kafka = kafka(r);
        for (JsonNode doc : r.flinkResources()) {
            Configuration conf = Configuration.fromMap(Rendered.flinkConfiguration(doc));
            if (!conf.contains(TrainingOptions.TOPIC)) {
                continue;
            }
            String bootstrap = conf.get(TrainingOptions.BOOTSTRAP);
            String host = bootstrap.substring(0, bootstrap.lastIndexOf(':'));
            int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
            String service = kafka.getMetadata().getName() + "-kafka-bootstrap";
            assertTrue(host.equals(service) || host.startsWith(service + "." + kafka.getMetadata().getNamespace() + "."),
                    r + ": " + bootstrap);
            List<GenericKafkaListener> plain = kafka.getSpec().getKafka().getListeners().stream()
                    .filter(l -> l.getPort() == port && !l.isTls()).toList();
            assertEquals(1, plain.size(), r + ": no plain listener on " + port);
        }
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
