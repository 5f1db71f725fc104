package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.RawRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * One JSON object per line through a {@link FeatureMapping}: top-level keys are the columns.
 * Strings, numbers and booleans are values (a number hashes as its JSON text, so {@code 5} and
 * {@code "5"} are the same categorical, {@code 5.0} another); an array is a multi-valued column;
 * null or an absent key is missing; a nested object is read as its JSON text.
 */
public final class JsonLinesParser implements LineParser {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ParseOptions options;
    private final FeatureMapping mapping;

    public JsonLinesParser(ParseOptions options, FeatureMapping mapping) {
        this.options = options;
        this.mapping = MappedRecords.requireLabel(mapping);
    }

    @Override
    public LineFormat format() {
        return LineFormat.JSONL;
    }

    @Override
    public ParseResult parse(String line, long lineNumber) {
        if (line.isBlank()) {
            return reject(RejectReason.EMPTY, "blank line");
        }
        JsonNode root;
        try {
            root = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            return reject(RejectReason.UNPARSABLE, "not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            return reject(RejectReason.UNPARSABLE, "not a JSON object");
        }
        return MappedRecords.parse(mapping, options, raw(root), lineNumber);
    }

    /** A JSON object's top-level keys as columns. */
    static RawRecord raw(JsonNode object) {
        return column -> value(object.get(column));
    }

    private static Object value(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isArray()) {
            List<Object> list = new ArrayList<>(n.size());
            n.forEach(e -> list.add(value(e)));
            return list;
        }
        if (n.isNumber()) {
            return n.numberValue();
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        return n.isTextual() ? n.textValue() : n.toString();
    }
}
