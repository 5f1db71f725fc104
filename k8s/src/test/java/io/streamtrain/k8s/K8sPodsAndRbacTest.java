package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import java.util.List;
import java.util.Map;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Flink pods' security context, probes and metrics port, and the RBAC they run under. */
class K8sPodsAndRbacTest {
    static final String MAIN_CONTAINER = "flink-main-container";

    static List<Rendered> renders() {
        return Rendered.all();
    }

    private static Container mainContainer(PodTemplateSpec template) {
        return template.getSpec().getContainers().stream().filter(c -> c.getName().equals(MAIN_CONTAINER))
                .findFirst().orElseThrow(() -> new AssertionError("no " + MAIN_CONTAINER));
    }

    @ParameterizedTest
    @MethodSource("renders")
    void flinkPodsRunAsTheFlinkUserWithoutPrivileges(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            PodTemplateSpec template = ((FlinkDeployment) ResourceKinds.bind(doc)).getSpec().getPodTemplate();
            PodSecurityContext pod = template.getSpec().getSecurityContext();
            assertEquals(9999L, pod.getRunAsUser());
            assertEquals(9999L, pod.getRunAsGroup());
            assertTrue(pod.getRunAsNonRoot());
            assertEquals("RuntimeDefault", pod.getSeccompProfile().getType());
            SecurityContext container = mainContainer(template).getSecurityContext();
            assertFalse(container.getAllowPrivilegeEscalation());
            assertEquals(List.of("ALL"), container.getCapabilities().getDrop());
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void jobManagersHaveProbesOnTheRestPortAndTaskManagersOnTheRpcPort(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            FlinkDeploymentSpec spec = ((FlinkDeployment) ResourceKinds.bind(doc)).getSpec();
            Container jm = mainContainer(spec.getJobManager().getPodTemplate());
            assertEquals(8081, jm.getLivenessProbe().getTcpSocket().getPort().getIntVal());
            assertEquals(8081, jm.getReadinessProbe().getHttpGet().getPort().getIntVal());
            if (spec.getTaskManager().getPodTemplate() != null) {
                Container tm = mainContainer(spec.getTaskManager().getPodTemplate());
                String rpcPort = spec.getFlinkConfiguration().get("taskmanager.rpc.port");
                assertEquals(rpcPort, String.valueOf(tm.getLivenessProbe().getTcpSocket().getPort().getIntVal()));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void thePrometheusReporterPortIsAnnotatedAndNamed(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            FlinkDeploymentSpec spec = ((FlinkDeployment) ResourceKinds.bind(doc)).getSpec();
            String port = spec.getFlinkConfiguration().get("metrics.reporter.prom.port");
            Map<String, String> annotations = spec.getPodTemplate().getMetadata().getAnnotations();
            assertEquals("true", annotations.get("prometheus.io/scrape"));
            assertEquals(port, annotations.get("prometheus.io/port"));
            assertTrue(mainContainer(spec.getPodTemplate()).getPorts().stream()
                    .anyMatch(p -> p.getName().equals("metrics") && String.valueOf(p.getContainerPort()).equals(port)));
        }
        for (JsonNode doc : r.ofKind("PodMonitor")) {
            PodMonitor monitor = (PodMonitor) ResourceKinds.bind(doc);
            monitor.getSpec().getPodMetricsEndpoints().forEach(e -> assertEquals("metrics", e.getPort()));
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theFlinkServiceAccountMayManageHaConfigMapsAndPods(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            String account = doc.path("spec").path("serviceAccount").asText();
            assertTrue(r.has("ServiceAccount", account), r + ": no ServiceAccount " + account);
            RoleBinding binding = r.ofKind("RoleBinding").stream().map(b -> (RoleBinding) ResourceKinds.bind(b))
                    .filter(b -> b.getSubjects().stream().anyMatch(s -> s.getKind().equals("ServiceAccount")
                            && s.getName().equals(account) && s.getNamespace().equals(b.getMetadata().getNamespace())))
                    .findFirst().orElseThrow(() -> new AssertionError(r + ": nothing binds " + account));
            assertEquals("Role", binding.getRoleRef().getKind());
            Role role = (Role) ResourceKinds.bind(r.get("Role", binding.getRoleRef().getName()));
            assertNotNull(role.getRules());
            for (String resource : List.of("configmaps", "pods")) {
                assertTrue(role.getRules().stream().anyMatch(rule -> grants(rule, resource)), r + ": " + resource);
            }
        }
    }

    private static boolean grants(PolicyRule rule, String resource) {
        return rule.getApiGroups().contains("") && rule.getResources().contains(resource)
                && rule.getVerbs().containsAll(List.of("get", "list", "watch", "create", "update", "delete"));
    }
}
