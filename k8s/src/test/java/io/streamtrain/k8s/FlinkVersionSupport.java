package io.streamtrain.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import org.apache.flink.kubernetes.operator.api.spec.FlinkVersion;

/**
 * The manifests run Flink 2.2, {@code flinkVersion: v2_2}, which the Flink Kubernetes Operator
 * knows since release 1.13.0. The newest operator API on Maven Central as seen from this build is
 * 1.10.0, whose {@link FlinkVersion} stops at v1_20, so binding v2_2 would fail on the enum alone.
 * Only for that one value, and only while the enum lacks it, the binding sees the newest constant
 * the enum has instead; {@code K8sFlinkVersionTest} checks separately that every FlinkDeployment
 * says v2_2 and that the enum still lacks it (so this class goes once the dependency catches up).
 * Any other unknown value is not replaced and fails the binding.
 */
final class FlinkVersionSupport {
    /** Major and minor of the Flink the image runs (flink:2.2.1-java17). */
    static final String MANIFEST_VERSION = "v2_2";

    private FlinkVersionSupport() {}

    static boolean operatorApiKnows(String version) {
        return Arrays.stream(FlinkVersion.values()).anyMatch(v -> v.name().equals(version));
    }

    static String newestKnownToOperatorApi() {
        FlinkVersion[] all = FlinkVersion.values();
        return all[all.length - 1].name();
    }

    static JsonNode bindable(JsonNode flinkDeployment) {
        String version = flinkDeployment.path("spec").path("flinkVersion").asText(null);
        if (version == null || operatorApiKnows(version) || !version.equals(MANIFEST_VERSION)) {
            return flinkDeployment;
        }
        ObjectNode copy = flinkDeployment.deepCopy();
        ((ObjectNode) copy.get("spec")).put("flinkVersion", newestKnownToOperatorApi());
        return copy;
    }
}
