package io.streamtrain.serve;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The body of {@code POST /score}, validated strictly (unknown fields, wrong types and
 * out-of-range features are errors, never guessed at). One example, or many:
 * <pre>
 * {"features": [{"field": 0, "id": 17, "value": 1.0}, ...]}      value is optional, default 1.0
 * {"line": "1 0:17:1 3:5:1"}                                     a raw line in the bundle's input format
 * {"examples": [ {"features": [...]}, {"line": "..."}, ... ]}
 * </pre>
 * A raw line goes through the same parser as {@code ingest} (its label is ignored), so it maps to
 * the same features as the training data.
 */
public final class ScoreRequests {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Set<String> EXAMPLE_FIELDS = Set.of("features", "line");
    private static final Set<String> FEATURE_FIELDS = Set.of("field", "id", "value");

    private final LineParser parser; // null: the bundle does not know its input format
    private final int maxExamples;
    private final int maxFeatures;

    public ScoreRequests(ModelCard.FeatureMapping mapping, int maxExamples, int maxFeatures) {
        this.parser = mapping.parser(ParseOptions.defaults("request").withMaxFeatures(maxFeatures));
        this.maxExamples = maxExamples;
        this.maxFeatures = maxFeatures;
    }

    /** The examples of a request body, as the row keys and values the model sees. */
    public List<ExampleRows> parse(byte[] body) throws BadRequest {
        JsonNode root = object(body);
        if (!root.has("examples")) {
            return List.of(example(root, "$"));
        }
        if (root.size() != 1) {
            throw BadRequest.invalid("unknown field '" + otherThan(root, Set.of("examples")) + "' beside 'examples'");
        }
        JsonNode examples = root.get("examples");
        if (!examples.isArray()) {
            throw BadRequest.invalid("'examples' must be an array, got " + kind(examples));
        }
        if (examples.isEmpty()) {
            throw BadRequest.invalid("'examples' is empty");
        }
        if (examples.size() > maxExamples) {
            throw BadRequest.tooLarge(examples.size() + " examples in one request; at most " + maxExamples);
        }
        List<ExampleRows> result = new ArrayList<>(examples.size());
        for (int i = 0; i < examples.size(); i++) {
            result.add(example(examples.get(i), "examples[" + i + "]"));
        }
        return result;
    }

    /** A body that must be one JSON object (strict: no duplicate keys, nothing after it). */
    static JsonNode object(byte[] body) throws BadRequest {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw BadRequest.invalid("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw BadRequest.invalid("unreadable body: " + e.getMessage());
        }
        if (root == null || root.isMissingNode()) {
            throw BadRequest.invalid("empty body: expected a JSON object");
        }
        if (!root.isObject()) {
            throw BadRequest.invalid("expected a JSON object, got " + kind(root));
        }
        return root;
    }

    int maxExamples() {
        return maxExamples;
    }

    int maxFeatures() {
        return maxFeatures;
    }

    private ExampleRows example(JsonNode node, String at) throws BadRequest {
        if (!node.isObject()) {
            throw BadRequest.invalid(at + ": expected an object, got " + kind(node));
        }
        String unknown = otherThan(node, EXAMPLE_FIELDS);
        if (unknown != null) {
            throw BadRequest.invalid(at + ": unknown field '" + unknown + "' (expected 'features' or 'line')");
        }
        boolean hasFeatures = node.has("features");
        if (hasFeatures == node.has("line")) {
            throw BadRequest.invalid(at + ": give exactly one of 'features' and 'line'");
        }
        return hasFeatures ? features(node.get("features"), at + ".features") : line(node.get("line"), at + ".line");
    }

    private ExampleRows features(JsonNode array, String at) throws BadRequest {
        if (!array.isArray()) {
            throw BadRequest.invalid(at + ": expected an array, got " + kind(array));
        }
        if (array.size() > maxFeatures) {
            throw BadRequest.invalid(at + ": " + array.size() + " features; at most " + maxFeatures);
        }
        List<Feature> features = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            JsonNode f = array.get(i);
            String here = at + "[" + i + "]";
            if (!f.isObject()) {
                throw BadRequest.invalid(here + ": expected an object, got " + kind(f));
            }
            String unknown = otherThan(f, FEATURE_FIELDS);
            if (unknown != null) {
                throw BadRequest.invalid(here + ": unknown field '" + unknown + "' (expected field, id, value)");
            }
            long field = integer(f.get("field"), here + ".field");
            long id = integer(f.get("id"), here + ".id");
            JsonNode v = f.get("value");
            features.add(feature(field, id, v == null ? 1f : number(v, here + ".value"), here));
        }
        return ExampleRows.of(features);
    }

    /** One feature, checked against the key layout's ranges. */
    static Feature feature(long field, long id, float value, String at) throws BadRequest {
        if (field < 0 || field > Integer.MAX_VALUE || !FeatureKey.isValidInput((int) field, id)) {
            throw BadRequest.invalid(at + ": feature " + field + ":" + id + " out of range (field 0.."
                    + (FeatureKey.MAX_FIELD - 1) + ", id 0.." + FeatureKey.MAX_ID + ")");
        }
        return new Feature((int) field, id, value);
    }

    /** A feature value: a finite float. */
    static float number(JsonNode v, String at) throws BadRequest {
        if (!v.isNumber()) {
            throw BadRequest.invalid(at + ": expected a number, got " + kind(v));
        }
        float value = v.floatValue();
        if (!Float.isFinite(value)) {
            throw BadRequest.invalid(at + ": " + v.asText() + " is not a finite float");
        }
        return value;
    }

    private ExampleRows line(JsonNode node, String at) throws BadRequest {
        if (!node.isTextual()) {
            throw BadRequest.invalid(at + ": expected a string, got " + kind(node));
        }
        return line(node.textValue(), at);
    }

    /** A raw line in the bundle's input format, through the same parser as {@code ingest}. */
    ExampleRows line(String text, String at) throws BadRequest {
        if (parser == null) {
            throw BadRequest.invalid(at + ": this bundle records no input format (export --format); send 'features' instead");
        }
        ParseResult result = parser.parse(text, 1);
        if (result instanceof ParseResult.Rejected rejected) {
            throw BadRequest.invalid(at + ": not a " + parser.format() + " line: " + rejected.reason().code() + ": " + rejected.detail());
        }
        return ExampleRows.of(((ParseResult.Ok) result).example().getFeatures());
    }

    static long integer(JsonNode n, String at) throws BadRequest {
        if (n == null) {
            throw BadRequest.invalid(at + " is missing");
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong()) {
            throw BadRequest.invalid(at + ": expected an integer, got " + kind(n));
        }
        return n.longValue();
    }

    private static String otherThan(JsonNode object, Set<String> allowed) {
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                return name;
            }
        }
        return null;
    }

    static String kind(JsonNode n) {
        return n.isNumber() ? "the number " + n.asText() : n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }
}
