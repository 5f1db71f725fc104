package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.streamtrain.serve.ServeCommand;
import io.streamtrain.train.TrainingOptions;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * The scoring Deployment, its Service, HPA and PodDisruptionBudget: the container's arguments are
 * parsed by {@code serve}'s own command line, the probes hit its health endpoints on its port, the
 * drain fits the grace period, and it follows the topic the training job writes its updates to.
 */
class K8sServingTest {
    static final String SERVING = "streamtrain-serving";
    static final Dockerfile SERVE_IMAGE = Dockerfile.read(ManifestTree.ROOT.resolve("image/serve.Dockerfile"));

    static List<Rendered> renders() {
        return Rendered.all();
    }

    static Deployment deployment(Rendered r) {
        return (Deployment) ResourceKinds.bind(r.get("Deployment", SERVING));
    }

    static Container serve(Deployment d) {
        List<Container> containers = d.getSpec().getTemplate().getSpec().getContainers();
        assertEquals(1, containers.size());
        return containers.get(0);
    }

    /** The container's arguments as serve parses them (the first is the subcommand), $(VAR) expanded as Kubernetes does. */
    static CommandLine.ParseResult serveArgs(Container c) {
        Map<String, String> env = new java.util.HashMap<>();
        if (c.getEnv() != null) {
            c.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
        }
        List<String> args = c.getArgs().stream().map(a -> expand(a, env)).toList();
        assertEquals("serve", args.get(0), "the image's entry point is the CLI; its first argument the command");
        return new CommandLine(new ServeCommand()).parseArgs(args.subList(1, args.size()).toArray(String[]::new));
    }

    private static String expand(String arg, Map<String, String> env) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)").matcher(arg);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = env.get(m.group(1));
            assertNotNull(value, "argument " + arg + " names $(" + m.group(1) + "), which the container's env does not set");
            m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(value));
        }
        return m.appendTail(out).toString();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void serveFollowsTheTrainingJobsModelUpdatesFromItsKafka(Rendered r) {
        CommandLine.ParseResult args = serveArgs(serve(deployment(r)));
        Configuration training = Configuration.fromMap(Rendered.flinkConfiguration(r.get("FlinkDeployment", "streamtrain-training")));
        String topic = args.matchedOptionValue("--follow", "");
        assertEquals(training.get(TrainingOptions.MODEL_UPDATES_TOPIC), topic, r.toString());
        assertEquals(training.get(TrainingOptions.BOOTSTRAP), args.matchedOptionValue("--bootstrap", ""), r.toString());
        JsonNode kafkaTopic = r.get("KafkaTopic", topic);
        assertEquals("compact", kafkaTopic.path("spec").path("config").path("cleanup.policy").asText(),
                r + ": a new pod reads the whole model from the topic only if it is compacted");
        assertEquals(training.get(TrainingOptions.MODEL_UPDATES_PARTITIONS).intValue(), kafkaTopic.path("spec").path("partitions").asInt());
    }

    @ParameterizedTest
    @MethodSource("renders")
    void probesHitServesHealthEndpointsOnItsPort(Rendered r) {
        Container c = serve(deployment(r));
        CommandLine.ParseResult args = serveArgs(c);
        int port = args.matchedOptionValue("--port", 8080);
        assertEquals("0.0.0.0", args.matchedOptionValue("--host", ""), "serve listens on the pod's address");
        assertEquals(List.of(port), c.getPorts().stream().filter(p -> p.getName().equals("http")).map(p -> p.getContainerPort()).toList());
        assertEquals("/health/ready", c.getReadinessProbe().getHttpGet().getPath());
        assertEquals("/health/live", c.getLivenessProbe().getHttpGet().getPath());
        assertEquals("/health/live", c.getStartupProbe().getHttpGet().getPath());
        for (var probe : List.of(c.getReadinessProbe(), c.getLivenessProbe(), c.getStartupProbe())) {
            assertEquals("http", probe.getHttpGet().getPort().getStrVal());
        }
        Map<String, String> annotations = deployment(r).getSpec().getTemplate().getMetadata().getAnnotations();
        assertEquals("/metrics", annotations.get("prometheus.io/path"));
        assertEquals(String.valueOf(port), annotations.get("prometheus.io/port"));
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theGracePeriodCoversTheShutdownDelayAndTheDrain(Rendered r) {
        Deployment d = deployment(r);
        CommandLine.ParseResult args = serveArgs(serve(d));
        int delay = args.matchedOptionValue("--shutdown-delay", 0);
        int drain = args.matchedOptionValue("--drain-timeout", 20);
        assertTrue(delay > 0, "endpoint removal needs time to reach every proxy before the listener closes");
        assertTrue(d.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds() > delay + drain,
                r + ": Kubernetes would SIGKILL serve mid-drain");
        assertEquals(0, d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal(), "roll out without losing capacity");
    }

    @ParameterizedTest
    @MethodSource("renders")
    void thePodRunsWithoutPrivilegesOnAReadOnlyRootWithItsStoreWritable(Rendered r) {
        PodSpec pod = deployment(r).getSpec().getTemplate().getSpec();
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
        assertFalse(pod.getAutomountServiceAccountToken(), "serve does not talk to the Kubernetes API");
        Container c = serve(deployment(r));
        assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
        assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        CommandLine.ParseResult args = serveArgs(c);
        String store = args.matchedOptionValue("--store", java.nio.file.Path.of("")).toString();
        String bundle = args.matchedOptionValue("--bundle", java.nio.file.Path.of("")).toString();
        assertTrue(writableMount(c, store), r + ": the serving store " + store + " is not on a writable volume");
        assertTrue(writableMount(c, "/tmp"), r + ": RocksDB unpacks its library into /tmp");
        VolumeMount bundles = mountOf(c, bundle);
        assertNotNull(bundles, "the bundle is on a volume");
        assertTrue(bundles.getReadOnly(), "serve only reads bundles");
        assertEquals(SERVE_IMAGE.user().split(":")[0], String.valueOf(pod.getSecurityContext().getRunAsUser()),
                "the pod runs as the image's user");
    }

    private static VolumeMount mountOf(Container c, String path) {
        return c.getVolumeMounts().stream().filter(m -> path.equals(m.getMountPath()) || path.startsWith(m.getMountPath() + "/"))
                .findFirst().orElse(null);
    }

    private static boolean writableMount(Container c, String path) {
        VolumeMount m = mountOf(c, path);
        return m != null && !Boolean.TRUE.equals(m.getReadOnly());
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theServiceHpaAndBudgetSelectTheServingPods(Rendered r) {
        Deployment d = deployment(r);
        Map<String, String> podLabels = d.getSpec().getTemplate().getMetadata().getLabels();
        assertTrue(podLabels.entrySet().containsAll(d.getSpec().getSelector().getMatchLabels().entrySet()));

        Service service = (Service) ResourceKinds.bind(r.get("Service", SERVING));
        assertTrue(podLabels.entrySet().containsAll(service.getSpec().getSelector().entrySet()), r.toString());
        assertEquals("http", service.getSpec().getPorts().get(0).getTargetPort().getStrVal());

        HorizontalPodAutoscaler hpa = (HorizontalPodAutoscaler) ResourceKinds.bind(r.get("HorizontalPodAutoscaler", SERVING));
        assertEquals("apps/v1", hpa.getSpec().getScaleTargetRef().getApiVersion());
        assertEquals("Deployment", hpa.getSpec().getScaleTargetRef().getKind());
        assertEquals(SERVING, hpa.getSpec().getScaleTargetRef().getName());
        assertTrue(serve(d).getResources().getRequests().containsKey("cpu"), "a CPU utilisation target needs a CPU request");

        PodDisruptionBudget pdb = (PodDisruptionBudget) ResourceKinds.bind(r.get("PodDisruptionBudget", SERVING));
        assertTrue(podLabels.entrySet().containsAll(pdb.getSpec().getSelector().getMatchLabels().entrySet()), r.toString());
        int maxUnavailable = pdb.getSpec().getMaxUnavailable().getIntVal();
        assertTrue(maxUnavailable >= 1, "a budget of 0 would block every node drain");
        assertTrue(hpa.getSpec().getMinReplicas() > maxUnavailable, r + ": a disruption may leave no pod serving");
    }

    @Test
    void theServeImageCopiesTheLauncherJarTheBuildMakes() {
        assertEquals("launcher/target/" + ManifestTree.shadedJarName("launcher"), SERVE_IMAGE.copies().get(0).source());
        assertTrue(SERVE_IMAGE.from().startsWith("eclipse-temurin:17"), SERVE_IMAGE.from());
    }
}
