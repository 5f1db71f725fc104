package io.streamtrain.serve;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.Feature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The KServe v2 (Open Inference Protocol) REST form of scoring, so KServe and Triton-style clients
 * work: {@code POST /v2/models/{name}/infer} with either
 * <ul>
 *   <li>input {@code line} (BYTES, shape [N]): raw lines in the bundle's input format, or</li>
 *   <li>inputs {@code field} (INT32/INT64, shape [N, F]), {@code id} (INT64, [N, F]) and optionally
 *       {@code value} (FP32/FP64, [N, F], default 1.0): F features per example, a {@code field} of -1
 *       marking padding for examples with fewer;</li>
 * </ul>
 * answered with output {@code score} (FP64, shape [N], P(label = 1)). Tensor data may be flat
 * (row-major) or nested. The model's version is its bundle's checkpoint id.
 */
final class InferenceProtocol {
    static final String OUTPUT = "score";
    private static final Set<String> REQUEST_FIELDS = Set.of("id", "inputs", "outputs", "parameters");
    private static final Set<String> TENSOR_FIELDS = Set.of("name", "shape", "datatype", "data", "parameters");

    private final ScoreRequests requests;

    InferenceProtocol(ScoreRequests requests) {
        this.requests = requests;
    }

    static String version(ModelCard card) {
        return Long.toString(card.checkpoint().id());
    }

    /** {@code GET /v2/models/{name}}. */
    static Map<String, Object> metadata(ModelCard card) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", card.name());
        m.put("versions", List.of(version(card)));
        m.put("platform", "streamtrain_" + card.modelType());
        m.put("inputs", List.of(
                tensor("line", "BYTES", List.of(-1)),
                tensor("field", "INT64", List.of(-1, -1)),
                tensor("id", "INT64", List.of(-1, -1)),
                tensor("value", "FP32", List.of(-1, -1))));
        m.put("outputs", List.of(tensor(OUTPUT, "FP64", List.of(-1))));
        return m;
    }

    /** {@code GET /v2}. */
    static Map<String, Object> server() {
        return Map.of("name", "streamtrain", "version", String.valueOf(InferenceProtocol.class.getPackage().getImplementationVersion()),
                "extensions", List.of());
    }

    private static Map<String, Object> tensor(String name, String datatype, List<Integer> shape) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", name);
        t.put("datatype", datatype);
        t.put("shape", shape);
        return t;
    }

    /** A parsed infer request: its examples and its id (null when it had none). */
    record Inference(String id, List<ExampleRows> examples) {}

    Inference parse(byte[] body) throws BadRequest {
        JsonNode root = ScoreRequests.object(body);
        for (var names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!REQUEST_FIELDS.contains(name)) {
                throw BadRequest.invalid("unknown field '" + name + "' (expected id, inputs, outputs, parameters)");
            }
        }
        JsonNode id = root.get("id");
        if (id != null && !id.isTextual()) {
            throw BadRequest.invalid("id: expected a string");
        }
        checkOutputs(root.get("outputs"));
        JsonNode inputs = root.get("inputs");
        if (inputs == null || !inputs.isArray() || inputs.isEmpty()) {
            throw BadRequest.invalid("inputs: expected a non-empty array of tensors");
        }
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
            JsonNode t = inputs.get(i);
            String at = "inputs[" + i + "]";
            if (!t.isObject() || !t.path("name").isTextual()) {
                throw BadRequest.invalid(at + ": expected a tensor object with a name");
            }
            for (var names = t.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!TENSOR_FIELDS.contains(name)) {
                    throw BadRequest.invalid(at + ": unknown field '" + name + "'");
                }
            }
            if (byName.put(t.get("name").textValue(), t) != null) {
                throw BadRequest.invalid(at + ": input '" + t.get("name").textValue() + "' given twice");
            }
        }
        List<ExampleRows> examples = byName.containsKey("line") ? lines(byName) : features(byName);
        return new Inference(id == null ? null : id.textValue(), examples);
    }

    private static void checkOutputs(JsonNode outputs) throws BadRequest {
        if (outputs == null) {
            return;
        }
        if (!outputs.isArray()) {
            throw BadRequest.invalid("outputs: expected an array");
        }
        for (JsonNode o : outputs) {
            if (!OUTPUT.equals(o.path("name").asText(null))) {
                throw BadRequest.invalid("outputs: this model has one output, '" + OUTPUT + "'");
            }
        }
    }

    private List<ExampleRows> lines(Map<String, JsonNode> inputs) throws BadRequest {
        if (inputs.size() != 1) {
            throw BadRequest.invalid("inputs: give either 'line' alone or 'field', 'id' (and 'value')");
        }
        JsonNode t = inputs.get("line");
        datatype(t, "line", Set.of("BYTES"));
        List<Integer> shape = shape(t, "line", 1);
        List<JsonNode> data = data(t, "line", shape.get(0));
        checkCount(shape.get(0));
        List<ExampleRows> examples = new ArrayList<>(data.size());
        for (int i = 0; i < data.size(); i++) {
            if (!data.get(i).isTextual()) {
                throw BadRequest.invalid("line.data[" + i + "]: expected a string, got " + ScoreRequests.kind(data.get(i)));
            }
            examples.add(requests.line(data.get(i).textValue(), "line.data[" + i + "]"));
        }
        return examples;
    }

    private List<ExampleRows> features(Map<String, JsonNode> inputs) throws BadRequest {
        for (String name : inputs.keySet()) {
            if (!Set.of("field", "id", "value").contains(name)) {
                throw BadRequest.invalid("inputs: unknown input '" + name + "' (expected line, or field, id and value)");
            }
        }
        if (!inputs.containsKey("field") || !inputs.containsKey("id")) {
            throw BadRequest.invalid("inputs: give 'line', or both 'field' and 'id' (and optionally 'value')");
        }
        datatype(inputs.get("field"), "field", Set.of("INT32", "INT64"));
        datatype(inputs.get("id"), "id", Set.of("INT32", "INT64"));
        List<Integer> shape = shape(inputs.get("field"), "field", 2);
        for (String other : List.of("id", "value")) {
            if (inputs.containsKey(other) && !shape(inputs.get(other), other, 2).equals(shape)) {
                throw BadRequest.invalid(other + ".shape must equal field.shape " + shape);
            }
        }
        int n = shape.get(0);
        int width = shape.get(1);
        checkCount(n);
        if (width > requests.maxFeatures()) {
            throw BadRequest.invalid("field.shape: " + width + " features per example; at most " + requests.maxFeatures());
        }
        List<JsonNode> fields = data(inputs.get("field"), "field", n * width);
        List<JsonNode> ids = data(inputs.get("id"), "id", n * width);
        List<JsonNode> values = null;
        if (inputs.containsKey("value")) {
            datatype(inputs.get("value"), "value", Set.of("FP32", "FP64"));
            values = data(inputs.get("value"), "value", n * width);
        }
        List<ExampleRows> examples = new ArrayList<>(n);
        for (int e = 0; e < n; e++) {
            List<Feature> features = new ArrayList<>(width);
            for (int j = 0; j < width; j++) {
                int k = e * width + j;
                String at = "[" + e + "][" + j + "]";
                long field = ScoreRequests.integer(fields.get(k), "field.data" + at);
                if (field == -1) {
                    continue; // padding
                }
                long id = ScoreRequests.integer(ids.get(k), "id.data" + at);
                float value = values == null ? 1f : ScoreRequests.number(values.get(k), "value.data" + at);
                features.add(ScoreRequests.feature(field, id, value, "inputs" + at));
            }
            examples.add(ExampleRows.of(features));
        }
        return examples;
    }

    private void checkCount(int n) throws BadRequest {
        if (n > requests.maxExamples()) {
            throw BadRequest.tooLarge(n + " examples in one request; at most " + requests.maxExamples());
        }
    }

    private static void datatype(JsonNode t, String name, Set<String> allowed) throws BadRequest {
        String datatype = t.path("datatype").asText("");
        if (!allowed.contains(datatype)) {
            throw BadRequest.invalid(name + ".datatype: '" + datatype + "'; expected one of " + allowed);
        }
    }

    private static List<Integer> shape(JsonNode t, String name, int rank) throws BadRequest {
        JsonNode shape = t.get("shape");
        if (shape == null || !shape.isArray() || shape.size() != rank) {
            throw BadRequest.invalid(name + ".shape: expected " + rank + " dimension" + (rank > 1 ? "s" : ""));
        }
        List<Integer> dims = new ArrayList<>(rank);
        for (JsonNode d : shape) {
            if (!d.isIntegralNumber() || d.longValue() < 1 || d.longValue() > 1_000_000) {
                throw BadRequest.invalid(name + ".shape: " + shape + " is not a shape of positive sizes");
            }
            dims.add(d.intValue());
        }
        return dims;
    }

    /** The tensor's elements, row-major, whether the data came flat or nested; exactly {@code count} of them. */
    private static List<JsonNode> data(JsonNode t, String name, int count) throws BadRequest {
        JsonNode data = t.get("data");
        if (data == null || !data.isArray()) {
            throw BadRequest.invalid(name + ".data: expected an array");
        }
        List<JsonNode> flat = new ArrayList<>(count);
        flatten(data, flat, count, name);
        if (flat.size() != count) {
            throw BadRequest.invalid(name + ".data: " + flat.size() + " elements for shape " + t.get("shape") + " (" + count + ")");
        }
        return flat;
    }

    private static void flatten(JsonNode node, List<JsonNode> into, int limit, String name) throws BadRequest {
        for (JsonNode e : node) {
            if (e.isArray()) {
                flatten(e, into, limit, name);
            } else if (into.size() < limit + 1) {
                into.add(e);
            } else {
                throw BadRequest.invalid(name + ".data: more elements than its shape holds");
            }
        }
    }

    /** The response to an infer request. */
    static Map<String, Object> response(ModelCard card, String id, double[] scores) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("model_name", card.name());
        r.put("model_version", version(card));
        if (id != null) {
            r.put("id", id);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", OUTPUT);
        out.put("datatype", "FP64");
        out.put("shape", List.of(scores.length));
        out.put("data", scores);
        r.put("outputs", List.of(out));
        return r;
    }
}
