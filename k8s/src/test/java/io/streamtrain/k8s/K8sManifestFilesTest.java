package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every YAML file under k8s/, document by document: kustomizations, JSON patches and manifests. */
class K8sManifestFilesTest {
    private static final Set<String> JSON_PATCH_OPS = Set.of("add", "remove", "replace", "move", "copy", "test");

    static Stream<Path> yamlFiles() {
        return ManifestTree.yamlFiles().stream();
    }

    static Stream<Path> kustomizationDirs() {
        return Stream.concat(ManifestTree.kustomizationRoots().stream(), ManifestTree.components().stream());
    }

    @ParameterizedTest
    @MethodSource("yamlFiles")
    void everyDocumentParsesAndBindsToItsApiClass(Path file) {
        if (file.getFileName().toString().equals("kustomization.yaml")) {
            Kustomization.read(file.getParent());
            return;
        }
        for (JsonNode doc : Yaml.documents(file)) {
            if (doc.isArray()) {
                doc.forEach(K8sManifestFilesTest::assertJsonPatchOperation);
            } else {
                HasMetadata bound = ResourceKinds.bind(doc);
                assertEquals(doc.path("kind").asText(), bound.getKind());
                assertEquals(doc.path("apiVersion").asText(), bound.getApiVersion());
                assertFalse(ResourceKinds.name(doc).isEmpty(), ManifestTree.relative(file) + ": a document without a name");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("kustomizationDirs")
    void everyReferencedFileExistsAndParses(Path dir) {
        for (Path referenced : Kustomization.read(dir).referencedFiles()) {
            assertTrue(Files.isRegularFile(referenced), ManifestTree.relative(referenced) + " is missing");
            assertFalse(Yaml.documents(referenced).isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource("kustomizationDirs")
    void everyStrategicPatchHasTheKindOfItsTarget(Path dir) {
        for (Kustomization.Patch patch : Kustomization.read(dir).patches()) {
            for (JsonNode doc : Yaml.documents(patch.file())) {
                if (!doc.isArray() && patch.hasTarget()) {
                    assertEquals(patch.targetKind(), doc.path("kind").asText(), ManifestTree.relative(patch.file()));
                }
            }
        }
    }

    @Test
    void everyYamlFileBelongsToAKustomization() {
        Set<Path> referenced = new HashSet<>();
        kustomizationDirs().forEach(dir -> {
            referenced.add(dir.resolve("kustomization.yaml"));
            referenced.addAll(Kustomization.read(dir).referencedFiles());
        });
        List<String> orphans = ManifestTree.yamlFiles().stream()
                .filter(f -> !referenced.contains(f)).map(ManifestTree::relative).toList();
        assertEquals(List.of(), orphans, "YAML files no kustomization uses");
    }

    private static void assertJsonPatchOperation(JsonNode op) {
        assertTrue(JSON_PATCH_OPS.contains(op.path("op").asText()), "JSON patch op: " + op);
        assertTrue(op.path("path").asText().startsWith("/"), "JSON patch path: " + op);
        if (Set.of("add", "replace", "test").contains(op.path("op").asText())) {
            assertTrue(op.has("value"), "JSON patch without value: " + op);
        }
    }
}
