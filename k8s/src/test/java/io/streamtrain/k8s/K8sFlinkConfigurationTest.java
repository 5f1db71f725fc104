package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every key of every flinkConfiguration exists as a ConfigOption, with a value of its type. */
class K8sFlinkConfigurationTest {
    private static final FlinkConfigKeys KEYS = FlinkConfigKeys.onClasspath();

    static List<Rendered> renders() {
        return Rendered.all();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void everyKeyIsAKnownOptionWithAValidValue(Rendered r) {
        List<String> problems = new ArrayList<>();
        for (JsonNode doc : r.flinkResources()) {
            KEYS.problems(Rendered.flinkConfiguration(doc))
                    .forEach(p -> problems.add(ResourceKinds.describe(doc) + " " + p));
        }
        assertEquals(List.of(), problems, r.toString());
    }

    @Test
    void theOptionsClassesTheManifestsRelyOnWereScanned() {
        List<String> required = List.of(
                "org.apache.flink.configuration.CheckpointingOptions",
                "org.apache.flink.configuration.StateBackendOptions",
                "org.apache.flink.configuration.HighAvailabilityOptions",
                "org.apache.flink.configuration.JobManagerOptions",
                "org.apache.flink.configuration.TaskManagerOptions",
                "org.apache.flink.configuration.MetricOptions",
                "org.apache.flink.configuration.RestOptions",
                "org.apache.flink.configuration.WebOptions",
                "org.apache.flink.configuration.ResourceManagerOptions",
                "org.apache.flink.state.rocksdb.RocksDBOptions",
                "org.apache.flink.kubernetes.configuration.KubernetesConfigOptions",
                "org.apache.flink.kubernetes.configuration.KubernetesHighAvailabilityOptions",
                "org.apache.flink.autoscaler.config.AutoScalerOptions");
        List<String> missing = required.stream().filter(c -> !KEYS.scannedClasses().contains(c)).toList();
        assertEquals(List.of(), missing, "not scanned; could not load: " + KEYS.unloadableClasses());
    }

    @Test
    void aMisspeltKeyIsReported() {
        List<String> problems = KEYS.problems(Map.of("scheduler-mod", "REACTIVE", "scheduler-mode", "REACTIVE"));
        assertEquals(List.of("scheduler-mod: not a known configuration key"), problems);
    }

    @Test
    void aMisspeltStreamtrainKeyIsReported() {
        assertEquals(1, KEYS.problems(Map.of("streamtrain.train.topik", "clicks")).size());
    }

    @Test
    void aValueOfTheWrongTypeIsReported() {
        List<String> problems = KEYS.problems(Map.of("execution.checkpointing.interval", "soon"));
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).contains("not a valid"), problems.get(0));
    }

    @Test
    void aDeprecatedKeyIsReportedWithItsReplacement() {
        List<String> problems = KEYS.problems(Map.of("state.checkpoints.dir", "s3://b/c"));
        assertEquals(List.of("state.checkpoints.dir: deprecated: use execution.checkpointing.dir"), problems);
    }

    @Test
    void reporterKeysMustBeReporterOptionsOrArgumentsOfTheFactory() {
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("metrics.reporter.prom.factory.class", "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        conf.put("metrics.reporter.prom.port", "9249");
        conf.put("metrics.reporter.prom.interval", "30 s");
        assertEquals(List.of(), KEYS.problems(conf));
        conf.put("metrics.reporter.prom.prot", "9249");
        assertEquals(1, KEYS.problems(conf).size(), "prot is neither a reporter option nor a Prometheus argument");
        assertEquals(1, KEYS.problems(Map.of("metrics.reporter.prom.factory.class", "org.example.NoSuchFactory")).size());
    }

    @Test
    void operatorKeysOffTheClasspathAreStillUnknownThereAndAllInUse() {
        for (String key : OperatorKeysNotOnClasspath.KEYS.keySet()) {
            assertFalse(KEYS.knows(key), key + " is now on the classpath: remove it from OperatorKeysNotOnClasspath");
        }
        Set<String> used = new HashSet<>();
        renders().forEach(r -> r.flinkResources().forEach(doc -> used.addAll(Rendered.flinkConfiguration(doc).keySet())));
        Set<String> unused = new HashSet<>(OperatorKeysNotOnClasspath.KEYS.keySet());
        unused.removeAll(used);
        assertEquals(Set.of(), unused, "listed in OperatorKeysNotOnClasspath but no manifest uses them");
    }
}
