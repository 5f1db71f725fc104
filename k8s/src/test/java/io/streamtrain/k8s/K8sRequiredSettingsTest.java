package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtrain.config.KnownOption;
import io.streamtrain.train.RequiredFlinkSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every FlinkDeployment carries the Flink settings the jobs require ({@link RequiredFlinkSettings}),
 * with the same values: the job would set them itself, but a cluster's operator reads the manifest,
 * and a setting that differs there from what the job runs with misleads.
 */
class K8sRequiredSettingsTest {
    static List<Rendered> renders() {
        return Rendered.all();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void everyFlinkDeploymentCarriesTheRequiredSettings(Rendered r) {
        List<String> problems = new ArrayList<>();
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            Map<String, String> conf = Rendered.flinkConfiguration(doc);
            for (RequiredFlinkSettings.Setting<?> s : RequiredFlinkSettings.SETTINGS) {
                String value = conf.get(s.option().key());
                if (value == null || !s.isValue(value)) {
                    problems.add(ResourceKinds.describe(doc) + " " + s.option().key() + ": " + (value == null ? "missing" : value)
                            + ", required: " + KnownOption.valueText(s.option(), s.value()));
                }
            }
        }
        assertEquals(List.of(), problems, r.toString());
    }
}
