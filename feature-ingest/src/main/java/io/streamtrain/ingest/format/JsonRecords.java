package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.ingest.mapping.FeatureMapping;
import java.io.IOException;

/** Topic records that are JSON objects, through {@link JsonLinesParser}'s reading of a JSON object. */
final class JsonRecords implements RecordDecoder {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final FeatureMapping mapping;
    private final int maxFeatures;

    JsonRecords(FeatureMapping mapping, int maxFeatures) {
        this.mapping = MappedRecords.requireLabel(mapping);
        this.maxFeatures = maxFeatures;
    }

    @Override
    public ParseResult decode(String source, long offset, long timestamp, byte[] value) {
        if (value == null || value.length == 0) {
            return reject(RejectReason.EMPTY, "record has no value");
        }
        JsonNode root;
        try {
            root = JSON.readTree(value);
        } catch (JsonProcessingException e) {
            return reject(RejectReason.UNPARSABLE, "not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return reject(RejectReason.UNPARSABLE, "not JSON: " + e.getMessage());
        }
        if (root != null && root.isObject()) {
            String missing = MappedRecords.firstMissing(mapping, root::has);
            if (missing != null) {
                return reject(RejectReason.MISSING_FIELD, "no \"" + missing + "\" in the record (the mapping reads it)");
            }
        }
        return JsonLinesParser.parse(mapping, MappedRecords.recordOptions(source, maxFeatures, timestamp), root, offset);
    }
}
