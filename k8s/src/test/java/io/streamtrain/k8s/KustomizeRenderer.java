package io.streamtrain.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders a kustomization the way {@code kubectl apply -k} would, for the subset these manifests
 * use: resources (files and directories), components, patches (strategic merge or JSON 6902, with
 * kind/name targets), namespace and metadata labels. Strategic-merge patches here may only hold
 * maps and scalars (for maps kustomize's merge is a JSON merge patch); a list in one fails, since
 * kustomize merges some lists by key, so list edits go in JSON 6902 patches. A patch that matches
 * no resource fails, as does a duplicate resource.
 */
final class KustomizeRenderer {
    private KustomizeRenderer() {}

    static List<JsonNode> render(Path dir) {
        return render(dir, List.of());
    }

    /** Renders {@code dir} as if its kustomization also listed {@code extraComponents}. */
    static List<JsonNode> render(Path dir, List<Path> extraComponents) {
        Kustomization k = Kustomization.read(dir);
        if (k.component()) {
            throw new IllegalArgumentException(ManifestTree.relative(dir) + " is a Component, not a kustomization root");
        }
        List<JsonNode> resources = load(k);
        List<Path> components = new ArrayList<>(k.components());
        components.addAll(extraComponents);
        for (Path c : components) {
            Kustomization component = Kustomization.read(c);
            boolean plain = component.namespace() == null && component.labels().isEmpty() && component.components().isEmpty();
            if (!component.component() || !plain) {
                throw new IllegalArgumentException(ManifestTree.relative(c)
                        + ": components must be Components with resources and patches only");
            }
            resources.addAll(load(component));
            applyPatches(component, resources);
        }
        applyPatches(k, resources);
        if (k.namespace() != null) {
            resources.stream().filter(ResourceKinds::isNamespaced)
                    .forEach(doc -> metadata(doc).put("namespace", k.namespace()));
        }
        for (JsonNode doc : resources) {
            k.labels().forEach((key, value) -> metadata(doc).withObjectProperty("labels").put(key, value));
        }
        requireUnique(resources, dir);
        return resources;
    }

    private static List<JsonNode> load(Kustomization k) {
        List<JsonNode> resources = new ArrayList<>();
        for (Path r : k.resources()) {
            if (Files.isDirectory(r)) {
                resources.addAll(render(r));
            } else {
                Yaml.documents(r).forEach(doc -> resources.add(doc.deepCopy()));
            }
        }
        return resources;
    }

    private static void applyPatches(Kustomization k, List<JsonNode> resources) {
        for (Kustomization.Patch patch : k.patches()) {
            List<JsonNode> docs = Yaml.documents(patch.file());
            String where = ManifestTree.relative(patch.file());
            if (docs.get(0).isArray()) {
                if (docs.size() != 1 || !patch.hasTarget()) {
                    throw new IllegalArgumentException(where + ": a JSON 6902 patch needs one document and a target");
                }
                for (int i : matches(resources, patch.targetKind(), patch.targetName(), where)) {
                    resources.set(i, JsonPatches.apply(docs.get(0), resources.get(i), where));
                }
            } else {
                for (JsonNode smp : docs) {
                    String kind = patch.hasTarget() ? patch.targetKind() : smp.path("kind").asText();
                    String name = patch.hasTarget() ? patch.targetName() : ResourceKinds.name(smp);
                    List<Integer> hits = matches(resources, kind, name, where);
                    if (smp.path("$patch").asText().equals("delete")) {
                        for (int j = hits.size() - 1; j >= 0; j--) {
                            resources.remove((int) hits.get(j));
                        }
                    } else {
                        requireNoLists(smp, where);
                        hits.forEach(i -> mergeInto((ObjectNode) resources.get(i), patchBody(smp)));
                    }
                }
            }
        }
    }

    private static List<Integer> matches(List<JsonNode> resources, String kind, String name, String where) {
        List<Integer> hits = new ArrayList<>();
        for (int i = 0; i < resources.size(); i++) {
            JsonNode r = resources.get(i);
            if (r.path("kind").asText().equals(kind) && (name == null || ResourceKinds.name(r).equals(name))) {
                hits.add(i);
            }
        }
        if (hits.isEmpty()) {
            throw new IllegalArgumentException(where + ": no resource " + kind + "/" + (name == null ? "*" : name) + " to patch");
        }
        return hits;
    }

    /** What a strategic-merge patch changes: everything but the fields that identify its target. */
    private static ObjectNode patchBody(JsonNode smp) {
        ObjectNode body = smp.deepCopy();
        body.remove(List.of("apiVersion", "kind"));
        if (body.has("metadata")) {
            ObjectNode metadata = (ObjectNode) body.get("metadata");
            metadata.remove("name");
            if (metadata.isEmpty()) {
                body.remove("metadata");
            }
        }
        return body;
    }

    /** RFC 7386: objects merge, null removes, anything else replaces. */
    private static void mergeInto(ObjectNode target, JsonNode patch) {
        Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            JsonNode existing = target.get(f.getKey());
            if (f.getValue().isNull()) {
                target.remove(f.getKey());
            } else if (f.getValue().isObject() && existing != null && existing.isObject()) {
                mergeInto((ObjectNode) existing, f.getValue());
            } else {
                target.set(f.getKey(), f.getValue().deepCopy());
            }
        }
    }

    private static void requireNoLists(JsonNode node, String where) {
        if (node.isArray()) {
            throw new IllegalArgumentException(where + ": a list in a strategic-merge patch; use a JSON 6902 patch");
        }
        node.elements().forEachRemaining(child -> requireNoLists(child, where));
    }

    private static ObjectNode metadata(JsonNode doc) {
        return ((ObjectNode) doc).withObjectProperty("metadata");
    }

    private static void requireUnique(List<JsonNode> resources, Path dir) {
        Set<String> seen = new HashSet<>();
        for (JsonNode r : resources) {
            if (!seen.add(ResourceKinds.describe(r))) {
                throw new IllegalArgumentException(ManifestTree.relative(dir) + ": " + ResourceKinds.describe(r) + " twice");
            }
        }
    }
}
