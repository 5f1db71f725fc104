package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtrain.join.JoinApplication;
import io.streamtrain.train.BackfillApplication;
import io.streamtrain.train.TrainingApplication;
import io.streamtrain.train.TrainingOptions;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.FlinkSessionJob;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.KubernetesDeploymentMode;
import org.apache.flink.kubernetes.operator.api.spec.Resource;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** FlinkDeployments and FlinkSessionJobs, bound to the Flink Kubernetes Operator's API classes. */
class K8sOperatorApiTest {
    static final String TRAINING = "streamtrain-training";
    static final String SESSION = "streamtrain-session";

    static List<Rendered> renders() {
        return Rendered.all();
    }

    static FlinkDeployment deployment(Rendered r, String name) {
        return (FlinkDeployment) ResourceKinds.bind(r.get("FlinkDeployment", name));
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theTrainingJobRunsTheApplicationFromTheImageAndResumesFromItsLastState(Rendered r) {
        JobSpec job = deployment(r, TRAINING).getSpec().getJob();
        assertEquals("local:///opt/flink/usrlib/streamtrain-job.jar", job.getJarURI());
        assertEquals(TrainingApplication.class.getName(), job.getEntryClass());
        assertEquals(0, job.getArgs().length, "TrainingApplication takes no arguments; settings go in flinkConfiguration");
        assertEquals(UpgradeMode.LAST_STATE, job.getUpgradeMode());
    }

    @ParameterizedTest
    @MethodSource("renders")
    void everyFlinkDeploymentHasKubernetesHaAndObjectStorage(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            Map<String, String> conf = Rendered.flinkConfiguration(doc);
            String what = r + ": " + ResourceKinds.describe(doc);
            assertEquals("kubernetes", conf.get("high-availability.type"), what);
            for (String key : List.of("high-availability.storageDir", "execution.checkpointing.dir", "execution.checkpointing.savepoint-dir")) {
                assertEquals("s3", URI.create(conf.get(key)).getScheme(), what + " " + key);
            }
            assertEquals("flink", doc.path("spec").path("serviceAccount").asText(), what);
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void resourcesAreValidFlinkMemorySizesAndPositiveCpus(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            FlinkDeployment d = (FlinkDeployment) ResourceKinds.bind(doc);
            for (Resource res : List.of(d.getSpec().getJobManager().getResource(), d.getSpec().getTaskManager().getResource())) {
                assertTrue(res.getCpu() > 0, r + ": cpu of " + d.getMetadata().getName());
                assertTrue(MemorySize.parse(res.getMemory()).getMebiBytes() >= 1024, r + ": memory of " + d.getMetadata().getName());
            }
        }
    }

    @Test
    void baseAndItsHpaOverlaysRunStandaloneReactive() {
        for (String root : List.of("base", "overlays/local", "overlays/production")) {
            Rendered r = Rendered.of(ManifestTree.ROOT.resolve(root));
            FlinkDeployment d = deployment(r, TRAINING);
            Map<String, String> conf = d.getSpec().getFlinkConfiguration();
            assertEquals(KubernetesDeploymentMode.STANDALONE, d.getSpec().getMode(), root);
            assertEquals("REACTIVE", conf.get("scheduler-mode"), root);
            int slots = Integer.parseInt(conf.get("taskmanager.numberOfTaskSlots"));
            assertEquals(d.getSpec().getTaskManager().getReplicas() * slots, d.getSpec().getJob().getParallelism(),
                    root + ": the starting parallelism is what reactive mode will run at");
        }
    }

    @Test
    void theNativeAutoscalerOverlayHandsParallelismToTheOperator() {
        Rendered r = Rendered.of(ManifestTree.overlay("native-autoscaler"));
        FlinkDeployment d = deployment(r, TRAINING);
        Map<String, String> conf = d.getSpec().getFlinkConfiguration();
        assertEquals(KubernetesDeploymentMode.NATIVE, d.getSpec().getMode());
        assertFalse(conf.containsKey("scheduler-mode"), "reactive mode only exists in standalone application clusters");
        assertEquals("adaptive", conf.get("jobmanager.scheduler"));
        assertEquals("true", conf.get("job.autoscaler.enabled"));
        assertNull(d.getSpec().getTaskManager().getReplicas(), "native mode derives TaskManagers from the parallelism");
        assertTrue(r.ofKind("HorizontalPodAutoscaler").stream()
                        .noneMatch(h -> h.path("spec").path("scaleTargetRef").path("kind").asText().equals("FlinkDeployment")),
                "an HPA would fight the operator's autoscaler");
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theSessionJobTargetsASessionClusterOverHttps(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkSessionJob")) {
            FlinkSessionJob job = (FlinkSessionJob) ResourceKinds.bind(doc);
            FlinkDeployment cluster = deployment(r, job.getSpec().getDeploymentName());
            assertNull(cluster.getSpec().getJob(), "a session cluster has no job of its own");
            URI jar = URI.create(job.getSpec().getJob().getJarURI());
            assertEquals("https", jar.getScheme(), "the operator fetches session jars, by default over https only");
            assertTrue(jar.getPath().endsWith("/streamtrain-job.jar"));
            assertTrue(APPLICATIONS.contains(job.getSpec().getJob().getEntryClass()), job.getSpec().getJob().getEntryClass());
        }
        assertNull(deployment(r, SESSION).getSpec().getJob());
    }

    /** The job jar's application classes: training, backfill and the joiner. */
    static final List<String> APPLICATIONS = List.of(TrainingApplication.class.getName(), BackfillApplication.class.getName(),
            JoinApplication.class.getName());

    @ParameterizedTest
    @MethodSource("renders")
    void everyJobOfTheJobJarHasAFlinkDeploymentAndAFlinkSessionJob(Rendered r) {
        for (String kind : List.of("FlinkDeployment", "FlinkSessionJob")) {
            List<String> entries = r.ofKind(kind).stream().map(d -> d.path("spec").path("job").path("entryClass").asText())
                    .filter(e -> !e.isEmpty()).toList();
            for (String application : APPLICATIONS) {
                assertTrue(entries.contains(application), r + ": no " + kind + " runs " + application + " (" + entries + ")");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void aBackfillShipsSuspendedWithItsRangeAndEndsInASavepoint(Rendered r) {
        for (JsonNode doc : r.flinkResources()) {
            if (!doc.path("spec").path("job").path("entryClass").asText().equals(BackfillApplication.class.getName())) {
                continue;
            }
            Map<String, String> conf = Rendered.flinkConfiguration(doc);
            String what = r + ": " + ResourceKinds.describe(doc);
            assertEquals("suspended", doc.path("spec").path("job").path("state").asText(), what + ": applying the manifests must not start a backfill");
            assertEquals("savepoint", doc.path("spec").path("job").path("upgradeMode").asText(), what + ": suspending it takes its savepoint");
            Map<String, String> start = Configuration.fromMap(conf).get(TrainingOptions.START_OFFSETS);
            Map<String, String> stop = Configuration.fromMap(conf).get(TrainingOptions.STOP_OFFSETS);
            assertEquals(stop.keySet(), start.keySet(), what + ": the range names every partition at both ends");
        }
    }

    @Test
    void aMisspeltFlinkDeploymentFieldFails() {
        JsonNode doc = Yaml.single("""
                apiVersion: flink.apache.org/v1beta1
                kind: FlinkDeployment
                metadata: {name: typo}
                spec:
                  flinkVersion: v2_2
                  jobManger: {replicas: 1}
                """);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResourceKinds.bind(doc));
        assertTrue(e.getMessage().contains("jobManger"), e.getMessage());
    }

    @Test
    void aMisspeltFieldInsideAPodTemplateFails() {
        JsonNode doc = Yaml.single("""
                apiVersion: flink.apache.org/v1beta1
                kind: FlinkDeployment
                metadata: {name: typo}
                spec:
                  taskManager:
                    podTemplate:
                      spec:
                        containers:
                          - name: flink-main-container
                            livenesProbe: {tcpSocket: {port: 6122}}
                """);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResourceKinds.bind(doc));
        assertTrue(e.getMessage().contains("livenesProbe"), e.getMessage());
    }

    @Test
    void aMisspeltUpgradeModeFails() {
        JsonNode doc = Yaml.single("""
                apiVersion: flink.apache.org/v1beta1
                kind: FlinkSessionJob
                metadata: {name: typo}
                spec:
                  job: {upgradeMode: last_state}
                """);
        assertThrows(IllegalArgumentException.class, () -> ResourceKinds.bind(doc));
    }
}
