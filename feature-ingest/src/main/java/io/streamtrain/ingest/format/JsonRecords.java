package io.streamtrain.ingest.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.ingest.mapping.FeatureMapping;
import java.io.IOException;

/** Topic records that are JSON objects, their values read as {@link JsonLinesParser} reads a line's. */
final class JsonRecords implements RecordDecoder {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final FeatureMapping mapping;
    private final int maxFeatures;

    JsonRecords(FeatureMapping mapping, int maxFeatures) {
        this.mapping = mapping;
        this.maxFeatures = maxFeatures;
    }

    @Override
    public Read read(byte[] value) {
        if (value == null || value.length == 0) {
            return Read.rejected(RejectReason.EMPTY, "record has no value");
        }
        JsonNode root;
        try {
            root = JSON.readTree(value);
        } catch (JsonProcessingException e) {
            return Read.rejected(RejectReason.UNPARSABLE, "not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return Read.rejected(RejectReason.UNPARSABLE, "not JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            return Read.rejected(RejectReason.UNPARSABLE, "not a JSON object");
        }
        return Read.of(JsonLinesParser.raw(root), root::has);
    }

    @Override
    public FeatureMapping mapping() {
        return mapping;
    }

    @Override
    public int maxFeatures() {
        return maxFeatures;
    }
}
