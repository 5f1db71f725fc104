package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The NetworkPolicy and the PodDisruptionBudgets select the Flink pods of every FlinkDeployment
 * (by the label their pod template carries, plus the operator's own component label), and the
 * policy lets in what Flink needs: the cluster's own pods, the operator on the REST port, Prometheus
 * on the metrics port.
 */
class K8sNetworkAndDisruptionTest {
    /** The label flink-pod-defaults.yaml puts on every Flink pod. */
    private static final Map.Entry<String, String> FLINK_POD_LABEL = Map.entry("streamtrain.io/runtime", "flink");
    /** The label the operator puts on a FlinkDeployment's pods: jobmanager or taskmanager. */
    private static final String OPERATOR_COMPONENT_LABEL = "component";

    static List<Rendered> renders() {
        return Rendered.all();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void thePolicyAndTheBudgetsSelectEveryFlinkPod(Rendered r) {
        List<NetworkPolicy> policies = flinkPolicies(r);
        List<PodDisruptionBudget> budgets = r.ofKind("PodDisruptionBudget").stream().map(d -> (PodDisruptionBudget) ResourceKinds.bind(d))
                .filter(b -> FLINK_POD_LABEL.getValue().equals(b.getSpec().getSelector().getMatchLabels().get(FLINK_POD_LABEL.getKey())))
                .toList();
        assertFalse(policies.isEmpty(), r.label);
        assertEquals(2, budgets.size(), r.label);
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            Map<String, String> podLabels = ((FlinkDeployment) ResourceKinds.bind(doc)).getSpec().getPodTemplate().getMetadata().getLabels();
            for (String component : List.of("jobmanager", "taskmanager")) {
                Map<String, String> labels = new HashMap<>(podLabels);
                labels.put(OPERATOR_COMPONENT_LABEL, component);
                String what = r + ": " + component + " pods of " + ResourceKinds.describe(doc);
                assertTrue(policies.stream().anyMatch(p -> selects(p.getSpec().getPodSelector().getMatchLabels(), labels)), what);
                assertEquals(1, budgets.stream().filter(b -> selects(b.getSpec().getSelector().getMatchLabels(), labels)).count(), what);
            }
        }
        for (PodDisruptionBudget b : budgets) {
            assertEquals(1, b.getSpec().getMaxUnavailable().getIntVal(), r + ": one pod of a Flink cluster at a time");
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void thePolicyLetsInTheClusterItselfTheOperatorAndPrometheusOnly(Rendered r) {
        for (NetworkPolicy policy : flinkPolicies(r)) {
            assertEquals(List.of("Ingress"), policy.getSpec().getPolicyTypes());
            Map<String, String> selected = policy.getSpec().getPodSelector().getMatchLabels();
            List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
            assertTrue(rules.stream().anyMatch(rule -> anyPort(rule) && rule.getFrom().stream()
                    .allMatch(peer -> peer.getNamespaceSelector() == null && selected.equals(peer.getPodSelector().getMatchLabels()))),
                    r + ": Flink pods reach each other on any port");
            for (NetworkPolicyIngressRule rule : rules) {
                if (!anyPort(rule)) {
                    List<Integer> ports = rule.getPorts().stream().map(p -> p.getPort().getIntVal()).toList();
                    assertTrue(ports.equals(List.of(8081)) || ports.equals(List.of(9249)), r + ": only REST and metrics from outside: " + ports);
                }
            }
        }
    }

    /** The NetworkPolicies of the Flink pods (the serving pods have their own). */
    private static List<NetworkPolicy> flinkPolicies(Rendered r) {
        return r.ofKind("NetworkPolicy").stream().map(d -> (NetworkPolicy) ResourceKinds.bind(d))
                .filter(p -> FLINK_POD_LABEL.getValue().equals(p.getSpec().getPodSelector().getMatchLabels().get(FLINK_POD_LABEL.getKey())))
                .toList();
    }

    /** The models read a missing list as empty: no ports named is every port. */
    private static boolean anyPort(NetworkPolicyIngressRule rule) {
        return rule.getPorts() == null || rule.getPorts().isEmpty();
    }

    private static boolean selects(Map<String, String> selector, Map<String, String> labels) {
        return selector != null && !selector.isEmpty() && selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }
}
