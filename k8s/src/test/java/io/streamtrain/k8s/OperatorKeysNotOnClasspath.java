package io.streamtrain.k8s;

import java.util.Map;

/**
 * Operator keys the manifests use whose ConfigOption classes this build cannot load, each with
 * where it is defined. KubernetesOperatorConfigOptions lives in org.apache.flink:flink-kubernetes-operator,
 * which Maven Central does not serve here; AutoScalerOptions is on the classpath only at 1.10.0,
 * before these keys were renamed. Checked by hand against the operator's release-1.15.0 sources.
 * {@code K8sFlinkConfigurationTest} fails once a key here becomes known on the classpath, so
 * this list only shrinks.
 */
final class OperatorKeysNotOnClasspath {
    private static final String OPERATOR = "KubernetesOperatorConfigOptions (flink-kubernetes-operator)";
    private static final String AUTOSCALER_1_11 = "AutoScalerOptions since operator 1.11.0";

    static final Map<String, String> KEYS = Map.of(
            "kubernetes.operator.pod-template.merge-arrays-by-name", OPERATOR,
            "kubernetes.operator.periodic.savepoint.interval", OPERATOR,
            "kubernetes.operator.savepoint.history.max.count", OPERATOR,
            "kubernetes.operator.cluster.health-check.enabled", OPERATOR,
            "kubernetes.operator.deployment.rollback.enabled", OPERATOR,
            "kubernetes.operator.deployment.readiness.timeout", OPERATOR,
            "job.autoscaler.utilization.target", AUTOSCALER_1_11 + " (was job.autoscaler.target.utilization)",
            "job.autoscaler.utilization.min", AUTOSCALER_1_11,
            "job.autoscaler.utilization.max", AUTOSCALER_1_11);

    private OperatorKeysNotOnClasspath() {}
}
