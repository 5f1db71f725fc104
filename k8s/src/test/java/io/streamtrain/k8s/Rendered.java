package io.streamtrain.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The output of one kustomization root (or root plus component), with look-ups by kind and name. */
final class Rendered {
    final String label;
    final List<JsonNode> docs;

    private Rendered(String label, List<JsonNode> docs) {
        this.label = label;
        this.docs = docs;
    }

    static Rendered of(Path root) {
        return new Rendered(ManifestTree.relative(root), KustomizeRenderer.render(root));
    }

    /** Every kustomization root, plus the production overlay with each component switched on. */
    static List<Rendered> all() {
        List<Rendered> all = new ArrayList<>();
        ManifestTree.kustomizationRoots().forEach(root -> all.add(of(root)));
        Path production = ManifestTree.overlay("production");
        for (Path component : ManifestTree.components()) {
            all.add(new Rendered(ManifestTree.relative(production) + " + " + ManifestTree.relative(component),
                    KustomizeRenderer.render(production, List.of(component))));
        }
        return all;
    }

    List<JsonNode> ofKind(String kind) {
        return docs.stream().filter(d -> d.path("kind").asText().equals(kind)).collect(Collectors.toList());
    }

    JsonNode get(String kind, String name) {
        return ofKind(kind).stream().filter(d -> ResourceKinds.name(d).equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(label + ": no " + kind + "/" + name));
    }

    boolean has(String kind, String name) {
        return ofKind(kind).stream().anyMatch(d -> ResourceKinds.name(d).equals(name));
    }

    /** FlinkDeployments and FlinkSessionJobs: the resources with a flinkConfiguration. */
    List<JsonNode> flinkResources() {
        List<JsonNode> flink = new ArrayList<>(ofKind("FlinkDeployment"));
        flink.addAll(ofKind("FlinkSessionJob"));
        return flink;
    }

    static Map<String, String> flinkConfiguration(JsonNode flinkResource) {
        Map<String, String> conf = new LinkedHashMap<>();
        flinkResource.path("spec").path("flinkConfiguration").fields()
                .forEachRemaining(e -> conf.put(e.getKey(), e.getValue().asText()));
        return conf;
    }

    @Override
    public String toString() {
        return label;
    }
}
