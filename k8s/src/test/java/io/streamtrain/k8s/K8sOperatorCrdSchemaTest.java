package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every rendered FlinkDeployment and FlinkSessionJob is valid against the CRDs of an operator
 * release that knows {@code flinkVersion: v2_2} ({@link OperatorCrdSchemas}), as it is, without
 * the version swap the operator API 1.10 classes need ({@link FlinkVersionSupport}).
 */
class K8sOperatorCrdSchemaTest {
    static List<Rendered> renders() {
        return Rendered.all();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void everyFlinkResourceIsValidAgainstTheOperatorsCrd(Rendered r) {
        List<JsonNode> flink = r.flinkResources();
        assertFalse(flink.isEmpty(), r.label);
        for (JsonNode doc : flink) {
            assertEquals(List.of(), OperatorCrdSchemas.problems(doc), r + ": " + ResourceKinds.describe(doc));
        }
    }

    @Test
    void theCrdKnowsFlink22AndRejectsWhatItDoesNotKnow() {
        JsonNode training = Rendered.of(ManifestTree.BASE).get("FlinkDeployment", K8sOperatorApiTest.TRAINING);
        assertEquals(FlinkVersionSupport.MANIFEST_VERSION, training.path("spec").path("flinkVersion").asText());

        ObjectNode unknownVersion = training.deepCopy();
        ((ObjectNode) unknownVersion.get("spec")).put("flinkVersion", "v2_99");
        assertTrue(OperatorCrdSchemas.problems(unknownVersion).stream().anyMatch(p -> p.contains("flinkVersion")),
                OperatorCrdSchemas.problems(unknownVersion).toString());

        ObjectNode misspelt = training.deepCopy();
        ((ObjectNode) misspelt.get("spec").get("job")).put("upgradeMod", "last-state");
        assertTrue(OperatorCrdSchemas.problems(misspelt).stream().anyMatch(p -> p.contains("upgradeMod")),
                OperatorCrdSchemas.problems(misspelt).toString());

        ObjectNode wrongType = training.deepCopy();
        ((ObjectNode) wrongType.get("spec").get("job")).put("parallelism", "two");
        assertFalse(OperatorCrdSchemas.problems(wrongType).isEmpty(), "parallelism must be an integer");
    }
}
