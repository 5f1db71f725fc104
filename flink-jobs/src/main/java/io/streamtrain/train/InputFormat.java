package io.streamtrain.train;

import static org.apache.flink.configuration.description.TextElement.text;

import io.streamtrain.ingest.format.RecordDecoder;
import io.streamtrain.ingest.mapping.FeatureMapping;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;

/** How the training topic's records are written ({@code streamtrain.train.input-format}). */
public enum InputFormat implements DescribedEnum {
    EXAMPLE("example", "the project's own Avro Example records (as ingest writes them)."),
    JSON("json", "JSON objects, read through the feature mapping (streamtrain.train.mapping)."),
    AVRO("avro", "Avro binary records written with the schema in streamtrain.train.reader-schema, read through the feature mapping."),
    AVRO_REGISTRY("avro-registry", "Avro in the schema registry's wire format (magic byte, schema id), writer schemas from"
            + " streamtrain.train.schema-registry-url, read as streamtrain.train.reader-schema if set, through the feature mapping.");

    private final String configName;
    private final String description;

    InputFormat(String configName, String description) {
        this.configName = configName;
        this.description = description;
    }

    /**
     * The decoder of a user's format, with its mapping and schema files read now (where the job is
     * built), so the task managers need none of them; null for {@link #EXAMPLE}.
     *
     * @throws IllegalArgumentException for a missing or unreadable mapping, schema or registry setting
     */
    public static RecordDecoder decoder(Configuration conf) {
        InputFormat format = conf.get(TrainingOptions.INPUT_FORMAT);
        if (format == EXAMPLE) {
            return null;
        }
        int maxFeatures = conf.get(TrainingOptions.MAX_FEATURES);
        FeatureMapping mapping = mapping(conf, format);
        Schema reader = conf.getOptional(TrainingOptions.READER_SCHEMA).map(InputFormat::schema).orElse(null);
        return switch (format) {
            case JSON -> RecordDecoder.json(mapping, maxFeatures);
            case AVRO -> {
                if (reader == null) {
                    throw new IllegalArgumentException("input format avro needs the records' schema: set "
                            + TrainingOptions.READER_SCHEMA.key() + " (--reader-schema FILE.avsc)");
                }
                yield RecordDecoder.avro(mapping, reader, maxFeatures);
            }
            case AVRO_REGISTRY -> RecordDecoder.avroRegistry(mapping, conf.getOptional(TrainingOptions.SCHEMA_REGISTRY_URL)
                    .orElseThrow(() -> new IllegalArgumentException("input format avro-registry needs the registry: set "
                            + TrainingOptions.SCHEMA_REGISTRY_URL.key() + " (--schema-registry URL)")), reader, maxFeatures);
            case EXAMPLE -> throw new AssertionError();
        };
    }

    private static FeatureMapping mapping(Configuration conf, InputFormat format) {
        String spec = conf.getOptional(TrainingOptions.MAPPING).orElseThrow(() -> new IllegalArgumentException(
                "input format " + format + " needs a feature mapping: set " + TrainingOptions.MAPPING.key() + " (--mapping FILE)"));
        try {
            return FeatureMapping.load(spec);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(TrainingOptions.MAPPING.key() + " " + spec + ": " + e.getMessage(), e);
        }
    }

    private static Schema schema(String file) {
        try {
            return new Schema.Parser().parse(Files.readString(Path.of(file)));
        } catch (IOException | SchemaParseException e) {
            throw new IllegalArgumentException(TrainingOptions.READER_SCHEMA.key() + " " + file + ": not a readable Avro schema: "
                    + e.getMessage(), e);
        }
    }

    /** The name a configuration uses; Flink's enum options match it case-insensitively. */
    @Override
    public String toString() {
        return configName;
    }

    @Override
    public InlineElement getDescription() {
        return text(description);
    }
}
