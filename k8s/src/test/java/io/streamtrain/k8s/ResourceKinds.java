package io.streamtrain.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.FlinkSessionJob;

/**
 * The kinds the manifests may contain, each with the API class it must bind to: the operator's
 * own classes for Flink, fabric8's for Kubernetes, Strimzi's for Kafka. A kind not listed fails.
 */
final class ResourceKinds {
    private static final List<Class<? extends HasMetadata>> CLASSES = List.of(
            FlinkDeployment.class, FlinkSessionJob.class,
            Kafka.class, KafkaNodePool.class, KafkaTopic.class, KafkaUser.class,
            HorizontalPodAutoscaler.class, PodMonitor.class,
            Namespace.class, ServiceAccount.class, Role.class, RoleBinding.class,
            Deployment.class, Service.class, Job.class, Secret.class, ConfigMap.class,
            NetworkPolicy.class, PodDisruptionBudget.class, PersistentVolumeClaim.class);

    private static final Map<String, Class<? extends HasMetadata>> BY_TYPE = new LinkedHashMap<>();

    static {
        for (Class<? extends HasMetadata> c : CLASSES) {
            String group = HasMetadata.getGroup(c);
            String apiVersion = group == null || group.isEmpty() ? HasMetadata.getVersion(c) : group + "/" + HasMetadata.getVersion(c);
            BY_TYPE.put(type(apiVersion, HasMetadata.getKind(c)), c);
        }
    }

    private ResourceKinds() {}

    static Class<? extends HasMetadata> classOf(JsonNode doc) {
        String type = type(doc.path("apiVersion").asText(), doc.path("kind").asText());
        Class<? extends HasMetadata> c = BY_TYPE.get(type);
        if (c == null) {
            throw new IllegalArgumentException("unexpected kind " + type + " (known: " + BY_TYPE.keySet() + ")");
        }
        return c;
    }

    static boolean isNamespaced(JsonNode doc) {
        return Namespaced.class.isAssignableFrom(classOf(doc));
    }

    /**
     * Binds a whole manifest, or a strategic-merge patch of one (its "$patch" directive removed),
     * strictly to its API class. FlinkDeployments go through {@link FlinkVersionSupport} first.
     */
    static HasMetadata bind(JsonNode doc) {
        Class<? extends HasMetadata> c = classOf(doc);
        ObjectNode node = doc.deepCopy();
        node.remove("$patch");
        JsonNode bindable = c == FlinkDeployment.class ? FlinkVersionSupport.bindable(node) : node;
        return StrictBinder.bind(bindable, c);
    }

    static String name(JsonNode doc) {
        return doc.path("metadata").path("name").asText();
    }

    static String describe(JsonNode doc) {
        return doc.path("kind").asText() + "/" + name(doc);
    }

    private static String type(String apiVersion, String kind) {
        return apiVersion + " " + kind;
    }
}
