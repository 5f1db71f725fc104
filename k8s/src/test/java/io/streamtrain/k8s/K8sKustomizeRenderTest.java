package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each overlay rendered as kubectl apply -k would, and every resource of it bound strictly. */
class K8sKustomizeRenderTest {
    static List<Rendered> renders() {
        return Rendered.all();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void everyRenderedResourceBindsToItsApiClass(Rendered rendered) {
        assertFalse(rendered.docs.isEmpty());
        for (JsonNode doc : rendered.docs) {
            ResourceKinds.bind(doc);
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void everyNamespacedResourceLandsInTheStreamtrainNamespace(Rendered rendered) {
        for (JsonNode doc : rendered.docs) {
            String expected = ResourceKinds.isNamespaced(doc) ? "streamtrain" : "";
            assertEquals(expected, doc.path("metadata").path("namespace").asText(), rendered + ": " + ResourceKinds.describe(doc));
        }
        assertTrue(rendered.has("Namespace", "streamtrain"));
    }

    @Test
    void overlaysChangeWhatTheySay() {
        JsonNode local = Rendered.of(ManifestTree.overlay("local")).get("KafkaNodePool", "dual-role");
        assertEquals(1, local.path("spec").path("replicas").asInt());
        assertEquals("ephemeral", local.path("spec").path("storage").path("volumes").path(0).path("type").asText());
        JsonNode production = Rendered.of(ManifestTree.overlay("production")).get("KafkaNodePool", "dual-role");
        assertEquals("500Gi", production.path("spec").path("storage").path("volumes").path(0).path("size").asText());
        assertEquals(3, production.path("spec").path("replicas").asInt());
    }

    @Test
    void aPatchOfAMissingResourceFails(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("sa.yaml"), "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: flink\n");
        Files.writeString(dir.resolve("patch.yaml"), "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: flinc\n");
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources: [sa.yaml]
                patches:
                  - path: patch.yaml
                """);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KustomizeRenderer.render(dir));
        assertTrue(e.getMessage().contains("ServiceAccount/flinc"), e.getMessage());
    }

    @Test
    void aJsonPatchOfAMissingPathFails(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("sa.yaml"), "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: flink\n");
        Files.writeString(dir.resolve("patch.yaml"), "- op: remove\n  path: /metadata/labels/absent\n");
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources: [sa.yaml]
                patches:
                  - path: patch.yaml
                    target: {kind: ServiceAccount, name: flink}
                """);
        assertThrows(RuntimeException.class, () -> KustomizeRenderer.render(dir));
    }

    @Test
    void anUnsupportedKustomizationFieldFails(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                namePrefix: dev-
                """);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KustomizeRenderer.render(dir));
        assertTrue(e.getMessage().contains("namePrefix"), e.getMessage());
    }
}
