package io.streamtrain.k8s;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads YAML into JSON trees: every document of a file, duplicate keys rejected. */
final class Yaml {
    static final ObjectMapper MAPPER = new ObjectMapper(
            YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

    private Yaml() {}

    static List<JsonNode> documents(Path file) {
        try (JsonParser parser = MAPPER.getFactory().createParser(file.toFile())) {
            return nonEmpty(parser, ManifestTree.relative(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + file, e);
        }
    }

    static List<JsonNode> documents(String text) {
        try (JsonParser parser = MAPPER.getFactory().createParser(text)) {
            return nonEmpty(parser, "inline YAML");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse inline YAML", e);
        }
    }

    static JsonNode single(String text) {
        List<JsonNode> docs = documents(text);
        if (docs.size() != 1) {
            throw new IllegalArgumentException("expected one YAML document, got " + docs.size());
        }
        return docs.get(0);
    }

    /**
     * One tree per YAML document (a document whose root is a list, a JSON patch, stays one tree).
     * A "---" at the end of a file yields an empty document; it is not a manifest.
     */
    private static List<JsonNode> nonEmpty(JsonParser parser, String where) throws IOException {
        List<JsonNode> result = new ArrayList<>();
        while (parser.nextToken() != null) {
            JsonNode doc = MAPPER.readTree(parser);
            if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                result.add(doc);
            }
        }
        if (result.isEmpty()) {
            throw new IllegalArgumentException(where + " holds no YAML document");
        }
        return result;
    }
}
