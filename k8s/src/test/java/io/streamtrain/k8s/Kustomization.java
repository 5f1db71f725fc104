package io.streamtrain.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A kustomization.yaml (Kustomization or Component), restricted to the fields these manifests use.
 * Any other field fails, so {@link KustomizeRenderer} never ignores something kustomize would do.
 */
record Kustomization(
        Path dir, boolean component, String namespace, Map<String, String> labels,
        List<Path> resources, List<Path> components, List<Patch> patches) {

    /** A patch file with an optional target selector (kind and name only). */
    record Patch(Path file, String targetKind, String targetName) {
        boolean hasTarget() {
            return targetKind != null;
        }
    }

    private static final Set<String> FIELDS =
            Set.of("apiVersion", "kind", "namespace", "labels", "resources", "components", "patches");

    static Kustomization read(Path dir) {
        Path file = dir.resolve("kustomization.yaml");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no kustomization.yaml in " + ManifestTree.relative(dir));
        }
        List<JsonNode> docs = Yaml.documents(file);
        if (docs.size() != 1) {
            throw new IllegalArgumentException(ManifestTree.relative(file) + ": one document expected");
        }
        JsonNode k = docs.get(0);
        String where = ManifestTree.relative(file);
        k.fieldNames().forEachRemaining(f -> {
            if (!FIELDS.contains(f)) {
                throw new IllegalArgumentException(where + ": field '" + f + "' is not supported by the test renderer");
            }
        });
        String type = k.path("apiVersion").asText() + " " + k.path("kind").asText();
        boolean component = type.equals("kustomize.config.k8s.io/v1alpha1 Component");
        if (!component && !type.equals("kustomize.config.k8s.io/v1beta1 Kustomization")) {
            throw new IllegalArgumentException(where + ": not a Kustomization or Component: " + type);
        }
        return new Kustomization(dir, component, k.path("namespace").asText(null), labels(k, where),
                paths(dir, k.path("resources"), where), paths(dir, k.path("components"), where), patches(dir, k, where));
    }

    /** Every file this kustomization names (resource files, kustomizations of directories, patches). */
    List<Path> referencedFiles() {
        List<Path> files = new ArrayList<>();
        for (Path r : resources) {
            files.add(Files.isDirectory(r) ? r.resolve("kustomization.yaml") : r);
        }
        components.forEach(c -> files.add(c.resolve("kustomization.yaml")));
        patches.forEach(p -> files.add(p.file()));
        return files;
    }

    private static Map<String, String> labels(JsonNode k, String where) {
        Map<String, String> labels = new java.util.LinkedHashMap<>();
        for (JsonNode entry : k.path("labels")) {
            Iterator<String> fields = entry.fieldNames();
            while (fields.hasNext()) {
                String f = fields.next();
                boolean allowed = f.equals("pairs") || (f.equals("includeSelectors") && !entry.get(f).asBoolean());
                if (!allowed) {
                    throw new IllegalArgumentException(where + ": labels." + f + " is not supported by the test renderer");
                }
            }
            entry.path("pairs").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        }
        return labels;
    }

    private static List<Path> paths(Path dir, JsonNode list, String where) {
        List<Path> paths = new ArrayList<>();
        for (JsonNode entry : list) {
            Path p = dir.resolve(entry.asText()).normalize();
            if (!Files.exists(p)) {
                throw new IllegalArgumentException(where + ": " + entry.asText() + " does not exist");
            }
            paths.add(p);
        }
        return paths;
    }

    private static List<Patch> patches(Path dir, JsonNode k, String where) {
        List<Patch> patches = new ArrayList<>();
        for (JsonNode entry : k.path("patches")) {
            entry.fieldNames().forEachRemaining(f -> {
                if (!f.equals("path") && !f.equals("target")) {
                    throw new IllegalArgumentException(where + ": patches." + f + " is not supported by the test renderer");
                }
            });
            JsonNode target = entry.path("target");
            target.fieldNames().forEachRemaining(f -> {
                if (!f.equals("kind") && !f.equals("name")) {
                    throw new IllegalArgumentException(where + ": patch target." + f + " is not supported by the test renderer");
                }
            });
            Path file = dir.resolve(entry.path("path").asText()).normalize();
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException(where + ": patch " + entry.path("path").asText() + " does not exist");
            }
            patches.add(new Patch(file, target.path("kind").asText(null), target.path("name").asText(null)));
        }
        return patches;
    }
}
