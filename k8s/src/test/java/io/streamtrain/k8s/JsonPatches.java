package io.streamtrain.k8s;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.Set;

/**
 * Applies JSON 6902 patches with fabric8's zjsonpatch, one operation at a time, after checking
 * what kustomize checks and zjsonpatch 0.3.0 does not: a path to remove, replace or test, and the
 * parent of a path to add to, must exist.
 */
final class JsonPatches {
    private static final Set<String> NEED_TARGET = Set.of("remove", "replace", "test");

    private JsonPatches() {}

    static JsonNode apply(JsonNode operations, JsonNode document, String where) {
        JsonNode result = document;
        for (JsonNode op : operations) {
            JsonPointer path = JsonPointer.compile(op.path("path").asText());
            String name = op.path("op").asText();
            if (NEED_TARGET.contains(name) && result.at(path).isMissingNode()) {
                throw new IllegalArgumentException(where + ": " + name + " " + path + ": no such path in " + ResourceKinds.describe(document));
            }
            if (name.equals("add") && !result.at(path.head()).isContainerNode()) {
                throw new IllegalArgumentException(where + ": add " + path + ": no parent in " + ResourceKinds.describe(document));
            }
            ArrayNode single = JsonNodeFactory.instance.arrayNode().add(op);
            result = JsonPatch.apply(single, result);
        }
        return result;
    }
}
