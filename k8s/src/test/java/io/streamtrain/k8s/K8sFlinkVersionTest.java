package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The manifests say flinkVersion v2_2, which the operator API on Maven Central here cannot bind. */
class K8sFlinkVersionTest {
    static List<Rendered> renders() {
        return Rendered.all();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void everyFlinkDeploymentSaysTheFlinkVersionOfTheImage(Rendered r) {
        String tag = Dockerfile.read(ManifestTree.DOCKERFILE).fromTag();
        String[] version = tag.substring(0, tag.indexOf('-')).split("\\.");
        String expected = "v" + version[0] + "_" + version[1];
        assertEquals(FlinkVersionSupport.MANIFEST_VERSION, expected);
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            assertEquals(expected, doc.path("spec").path("flinkVersion").asText(), r + ": " + ResourceKinds.describe(doc));
        }
    }

    @Test
    void theOperatorApiOnTheClasspathStillLacksV2_2() {
        assertFalse(FlinkVersionSupport.operatorApiKnows(FlinkVersionSupport.MANIFEST_VERSION),
                "the operator API now knows v2_2: bind it directly and delete FlinkVersionSupport");
        assertEquals("v1_20", FlinkVersionSupport.newestKnownToOperatorApi());
    }

    @Test
    void onlyV2_2IsStoodInFor() {
        JsonNode v22 = Yaml.single("""
                apiVersion: flink.apache.org/v1beta1
                kind: FlinkDeployment
                metadata: {name: d}
                spec: {flinkVersion: v2_2}
                """);
        FlinkDeployment bound = (FlinkDeployment) ResourceKinds.bind(v22);
        assertEquals("v1_20", bound.getSpec().getFlinkVersion().name());
        assertEquals("v2_2", v22.path("spec").path("flinkVersion").asText(), "the manifest itself is left alone");

        JsonNode unknown = Yaml.single("""
                apiVersion: flink.apache.org/v1beta1
                kind: FlinkDeployment
                metadata: {name: d}
                spec: {flinkVersion: v2_9}
                """);
        assertThrows(IllegalArgumentException.class, () -> ResourceKinds.bind(unknown));
    }
}
