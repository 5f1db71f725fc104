package io.streamtrain.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/**
 * The openAPIV3Schema of the FlinkDeployment and FlinkSessionJob CRDs of an operator release that
 * knows Flink 2.2 (vendored in src/test/resources/crds, see SOURCE.md there), as JSON schemas a
 * manifest is validated against the way the API server validates it with strict field
 * validation: an object schema that declares its properties rejects any other field, unless it
 * says {@code x-kubernetes-preserve-unknown-fields} (the API server would otherwise prune them
 * silently, so a misspelt field would never reach the operator).
 */
final class OperatorCrdSchemas {
    static final String OPERATOR_RELEASE = "flink-kubernetes-operator-1.14.0";
    private static final Map<String, String> CRD_FILES = Map.of(
            "FlinkDeployment", "flinkdeployments.flink.apache.org-v1.yml",
            "FlinkSessionJob", "flinksessionjobs.flink.apache.org-v1.yml");
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4);

    private OperatorCrdSchemas() {}

    /** The problems of {@code doc} (a FlinkDeployment or FlinkSessionJob) against its CRD, one line each; empty when it is valid. */
    static List<String> problems(JsonNode doc) {
        String kind = doc.path("kind").asText();
        String version = doc.path("apiVersion").asText().substring(doc.path("apiVersion").asText().indexOf('/') + 1);
        List<Error> errors = schema(kind, version).validate(doc);
        return errors.stream().map(e -> e.getInstanceLocation() + ": " + e.getMessage()).toList();
    }

    private static Schema schema(String kind, String version) {
        JsonNode crd = Yaml.documents(crdFile(kind)).get(0);
        JsonNode served = StreamSupport.stream(crd.path("spec").path("versions").spliterator(), false)
                .filter(v -> v.path("name").asText().equals(version) && v.path("served").asBoolean())
                .findFirst()
                .orElseThrow(() -> new AssertionError(OPERATOR_RELEASE + " does not serve " + kind + " " + version));
        JsonNode schema = served.path("schema").path("openAPIV3Schema").deepCopy();
        // From spec down: the root's apiVersion, kind and metadata are the API server's own (fabric8's models check metadata).
        rejectUndeclaredFields(schema.path("properties").path("spec"));
        return REGISTRY.getSchema(schema);
    }

    private static Path crdFile(String kind) {
        String file = CRD_FILES.get(kind);
        if (file == null) {
            throw new IllegalArgumentException("no CRD vendored for kind " + kind);
        }
        try {
            return Path.of(OperatorCrdSchemas.class.getResource("/crds/" + OPERATOR_RELEASE + "/" + file).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** additionalProperties: false on every object schema that lists its properties and keeps no unknown ones. */
    private static void rejectUndeclaredFields(JsonNode schema) {
        if (!(schema instanceof ObjectNode node)) {
            return;
        }
        if (node.has("properties") && !node.has("additionalProperties")
                && !node.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
            node.put("additionalProperties", false);
        }
        node.path("properties").forEach(OperatorCrdSchemas::rejectUndeclaredFields);
        rejectUndeclaredFields(node.path("items"));
        JsonNode additional = node.path("additionalProperties");
        if (additional.isObject()) {
            rejectUndeclaredFields(additional);
        }
    }
}
