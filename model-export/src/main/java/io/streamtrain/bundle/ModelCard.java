package io.streamtrain.bundle;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.streamtrain.contract.RowCodec;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A bundle's {@code model-card.json}: what the model is, where it came from and how to check it.
 *
 * @param format always {@value #FORMAT}
 * @param modelType lr, fm, deepfm, wdl or dcn; {@code rowWidth} = 1 + dim, 1 for lr
 * @param mapping how raw input becomes (field, id, value) features, as at ingest
 * @param source the training topic and, per partition, the offset the job had read up to at the checkpoint
 *     (null when the checkpoint holds no source state)
 * @param checkpoint the checkpoint or savepoint the rows were read from
 * @param rowTtlMs rows not updated for this long before the checkpoint were left out (0: no expiry)
 * @param trainingMetrics progressive-validation metrics at export time, when known (else null)
 * @param contents row count and checksum, verified when the bundle is opened
 * @param fields the deep models' input fields, {@code hidden} their MLP widths and {@code crossLayers}
 *     DCN's cross layers (0, empty and 0 for lr and fm, and in cards written before deep models)
 */
public record ModelCard(
        String format,
        String name,
        String modelType,
        int dim,
        int rowWidth,
        String optimizer,
        FeatureMapping mapping,
        Source source,
        Checkpoint checkpoint,
        long rowTtlMs,
        Map<String, Double> trainingMetrics,
        String createdAt,
        String projectVersion,
        Contents contents,
        int fields,
        List<Integer> hidden,
        int crossLayers) {

    public static final String FORMAT = "streamtrain-bundle/1";

    public ModelCard {
        hidden = hidden == null ? List.of() : List.copyOf(hidden);
    }

    /** What fixes the model's math, as the trainer ran it. */
    public ModelShape shape() {
        return new ModelShape(ModelKind.parse(modelType), dim, fields, hidden, crossLayers);
    }
    public static final String FILE = "model-card.json";
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * @param inputFormat the line format of raw input (libsvm, libffm, criteo, csv, jsonl, avazu), or null when
     *     unknown: then only (field, id, value) features can be scored
     * @param hashBits criteo categoricals hash to ids in [0, 2^hashBits) ({@code FeatureHashing})
     * @param definition for csv, jsonl and avazu: the ingest feature mapping itself (its JSON), so scoring
     *     featurises raw rows exactly as ingest did; null for the other formats (and in cards written before it)
     */
    public record FeatureMapping(String inputFormat, int hashBits, String rowKey, String hash, JsonNode definition) {
        public FeatureMapping {
            definition = definition == null || definition.isNull() ? null : definition; // JSON null reads as NullNode
        }

        public static FeatureMapping of(String inputFormat, int hashBits) {
            return new FeatureMapping(inputFormat, hashBits, "field << 48 | id (FeatureKey)",
                    "FNV-1a 64 over field (4 bytes BE) + UTF-8 value, murmur3 fmix64, low hashBits bits (FeatureHashing)", null);
        }

        /** A mapped format (csv, jsonl, avazu) with the mapping it was ingested through. */
        public static FeatureMapping of(String inputFormat, io.streamtrain.ingest.mapping.FeatureMapping mapping) {
            if (mapping.definition() == null) {
                throw new IllegalArgumentException(mapping + " was built in code and has no JSON definition to record");
            }
            try {
                return new FeatureMapping(inputFormat, ParseOptions.DEFAULT_HASH_BITS, "field << 48 | id (FeatureKey)",
                        "FNV-1a 64 over field (4 bytes BE) + UTF-8 value, murmur3 fmix64, low hash_bits bits per the mapping"
                                + " (FeatureHashing)", JSON.readTree(mapping.definition()));
            } catch (IOException e) {
                throw new IllegalArgumentException("mapping " + mapping.name() + " is not JSON", e);
            }
        }

        /** The parser of raw lines as ingested, or null when the format is unknown; rows are read without a header. */
        public LineParser parser(ParseOptions options) {
            if (inputFormat == null) {
                return null;
            }
            LineFormat format = LineFormat.fromName(inputFormat);
            return definition == null ? format.parser(options.withHashBits(hashBits))
                    : format.parser(options, io.streamtrain.ingest.mapping.FeatureMapping.fromJson(definition.toString(), "model card"));
        }
    }

    public record Source(String topic, Map<Integer, Long> offsets) {}

    /** @param id the N of chk-N, or -1 for a savepoint */
    public record Checkpoint(String path, long id, long timeMs) {}

    /**
     * @param valueLayout and {@code keyLayout}: see {@link RowCodec}
     * @param checksum Σ of the rows' and the bias's digests mod 2^64, 16 hex digits
     */
    public record Contents(long rows, String checksum, String keyLayout, String valueLayout) {
        public static Contents of(long rows, long checksum) {
            return new Contents(rows, String.format("%016x", checksum), "8 bytes big-endian: field (2), id (6)",
                    "row width x float32 little-endian: linear weight, then the embedding; a dense chunk row (field 65534):"
                            + " 256 x float32 of the dense parameters");
        }

        public long checksumValue() {
            return Long.parseUnsignedLong(checksum, 16);
        }
    }

    public void write(Path bundle) throws IOException {
        JSON.writeValue(bundle.resolve(FILE).toFile(), this);
    }

    public static ModelCard read(Path bundle) throws IOException {
        Path file = bundle.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new IOException("no " + FILE + " in " + bundle + ": not a bundle, or its export did not finish");
        }
        ModelCard card = JSON.readValue(file.toFile(), ModelCard.class);
        if (!FORMAT.equals(card.format())) {
            throw new IOException(file + " is format '" + card.format() + "', this version reads " + FORMAT);
        }
        return card;
    }
}
