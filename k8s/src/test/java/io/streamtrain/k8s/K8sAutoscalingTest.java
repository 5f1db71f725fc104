package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.streamtrain.train.TrainingOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The HPA against the FlinkDeployment it scales, the job's topics and its rescale cooldown. */
class K8sAutoscalingTest {
    static List<Rendered> renders() {
        return Rendered.all();
    }

    /** The HPAs that scale a FlinkDeployment (the serving HPA has its own test, K8sServingTest). */
    private static List<JsonNode> flinkHpas(Rendered r) {
        return r.ofKind("HorizontalPodAutoscaler").stream()
                .filter(h -> h.path("spec").path("scaleTargetRef").path("kind").asText().equals("FlinkDeployment")).toList();
    }

    private static HorizontalPodAutoscaler hpa(JsonNode doc) {
        return (HorizontalPodAutoscaler) ResourceKinds.bind(doc);
    }

    private static Configuration target(Rendered r, HorizontalPodAutoscaler hpa) {
        CrossVersionObjectReference ref = hpa.getSpec().getScaleTargetRef();
        assertEquals("flink.apache.org/v1beta1", ref.getApiVersion());
        assertEquals("FlinkDeployment", ref.getKind());
        return Configuration.fromMap(Rendered.flinkConfiguration(r.get("FlinkDeployment", ref.getName())));
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theHpaScalesAReactiveFlinkDeploymentOfTheSameKustomization(Rendered r) {
        for (JsonNode doc : flinkHpas(r)) {
            Configuration conf = target(r, hpa(doc));
            assertEquals("REACTIVE", conf.get(JobManagerOptions.SCHEDULER_MODE).name(),
                    "replicas only drive the parallelism in reactive mode");
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theLargestParallelismFitsTheTopicPartitions(Rendered r) {
        for (JsonNode doc : flinkHpas(r)) {
            HorizontalPodAutoscaler hpa = hpa(doc);
            Configuration conf = target(r, hpa);
            int maxParallelism = hpa.getSpec().getMaxReplicas() * conf.get(TaskManagerOptions.NUM_TASK_SLOTS);
            assertTrue(maxParallelism <= conf.get(TrainingOptions.FEEDBACK_PARTITIONS),
                    r + ": pushes of more subtasks than feedback partitions break the per-partition order");
            int examplePartitions = r.get("KafkaTopic", conf.get(TrainingOptions.TOPIC)).path("spec").path("partitions").asInt();
            assertTrue(maxParallelism <= examplePartitions, r + ": source subtasks beyond the partitions idle");
            assertTrue(hpa.getSpec().getMinReplicas() >= 1 && hpa.getSpec().getMinReplicas() <= hpa.getSpec().getMaxReplicas());
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theNativeAutoscalerStaysWithinTheFeedbackPartitions(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            Map<String, String> conf = Rendered.flinkConfiguration(doc);
            if ("true".equals(conf.get("job.autoscaler.enabled"))) {
                int max = Integer.parseInt(conf.get("job.autoscaler.vertex.max-parallelism"));
                assertTrue(max <= Configuration.fromMap(conf).get(TrainingOptions.FEEDBACK_PARTITIONS), r.toString());
            }
        }
    }

    /** Each rescale restarts the job from its checkpoint; the HPA must not act faster than the job's cooldown. */
    @ParameterizedTest
    @MethodSource("renders")
    void theHpaDoesNotRescaleFasterThanTheJobSettles(Rendered r) {
        for (JsonNode doc : flinkHpas(r)) {
            HorizontalPodAutoscaler hpa = hpa(doc);
            Duration cooldown = target(r, hpa).get(JobManagerOptions.SCHEDULER_EXECUTING_COOLDOWN_AFTER_RESCALING);
            HPAScalingRules up = hpa.getSpec().getBehavior().getScaleUp();
            HPAScalingRules down = hpa.getSpec().getBehavior().getScaleDown();
            assertTrue(up.getStabilizationWindowSeconds() >= cooldown.toSeconds(), r + ": scale-up window");
            assertTrue(down.getStabilizationWindowSeconds() > up.getStabilizationWindowSeconds(), r + ": scale down slower than up");
            for (HPAScalingRules rules : List.of(up, down)) {
                rules.getPolicies().forEach(p -> assertTrue(p.getPeriodSeconds() >= cooldown.toSeconds(), r + ": policy " + p));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void aLagMetricWatchesTheTargetJobsOwnConsumerGroup(Rendered r) {
        for (JsonNode doc : flinkHpas(r)) {
            HorizontalPodAutoscaler hpa = hpa(doc);
            Configuration conf = target(r, hpa);
            for (MetricSpec metric : hpa.getSpec().getMetrics()) {
                if (metric.getType().equals("External")) {
                    Map<String, String> labels = metric.getExternal().getMetric().getSelector().getMatchLabels();
                    assertEquals(TrainingOptions.examplesGroup(conf), labels.get("consumergroup"), r.toString());
                    assertEquals(conf.get(TrainingOptions.TOPIC), labels.get("topic"), r.toString());
                } else {
                    assertEquals("cpu", metric.getResource().getName());
                }
            }
        }
    }

    @Test
    void theLagComponentReplacesTheCpuMetric() {
        Rendered r = Rendered.all().stream().filter(x -> x.label.contains("kafka-lag-hpa")).findFirst().orElseThrow();
        List<MetricSpec> metrics = hpa(r.get("HorizontalPodAutoscaler", "streamtrain-training")).getSpec().getMetrics();
        assertEquals(List.of("External"), metrics.stream().map(MetricSpec::getType).toList());
        assertTrue(r.get("Kafka", "streamtrain").path("spec").has("kafkaExporter"));
    }

    @Test
    void aMisspeltHpaFieldFails() {
        JsonNode doc = Yaml.single("""
                apiVersion: autoscaling/v2
                kind: HorizontalPodAutoscaler
                metadata: {name: typo}
                spec: {maxReplica: 3}
                """);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResourceKinds.bind(doc));
        assertTrue(e.getMessage().contains("maxReplica"), e.getMessage());
    }
}
