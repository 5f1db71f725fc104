package io.streamtrain.train;

import static org.apache.flink.configuration.description.TextElement.text;

import io.streamtrain.ingest.format.RecordDecoder;
import io.streamtrain.ingest.mapping.FeatureMapping;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
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
     * The training topic's decoder, with its mapping and schema files read now (where the job is
     * built), so the task managers need none of them; null for {@link #EXAMPLE}.
     *
     * @throws IllegalArgumentException for a missing or unreadable mapping, schema or registry setting
     */
    public static RecordDecoder decoder(Configuration conf) {
        InputFormat format = conf.get(TrainingOptions.INPUT_FORMAT);
        if (format == EXAMPLE) {
            return null;
        }
        String spec = conf.getOptional(TrainingOptions.MAPPING).orElseThrow(() -> new IllegalArgumentException(
                "input format " + format + " needs a feature mapping: set " + TrainingOptions.MAPPING.key() + " (--mapping FILE)"));
        FeatureMapping mapping = mapping(TrainingOptions.MAPPING.key(), spec);
        if (mapping.labelColumn() == null) {
            throw new IllegalArgumentException(TrainingOptions.MAPPING.key() + " " + spec + ": a training topic's mapping needs a \"label\" column");
        }
        return format.decoder(mapping, TrainingOptions.READER_SCHEMA, conf.getOptional(TrainingOptions.READER_SCHEMA),
                TrainingOptions.SCHEMA_REGISTRY_URL, conf.getOptional(TrainingOptions.SCHEMA_REGISTRY_URL), conf.get(TrainingOptions.MAX_FEATURES));
    }

    /**
     * A decoder of this (user's) format.
     *
     * @param schemaOption where the schema file was set, for messages
     * @param registryOption where the registry URL was set, for messages
     */
    public RecordDecoder decoder(FeatureMapping mapping, ConfigOption<String> schemaOption, Optional<String> schemaFile,
                                 ConfigOption<String> registryOption, Optional<String> registryUrl, int maxFeatures) {
        Schema schema = schemaFile.map(f -> schema(schemaOption.key(), f)).orElse(null);
        return switch (this) {
            case JSON -> RecordDecoder.json(mapping, maxFeatures);
            case AVRO -> RecordDecoder.avro(mapping, Optional.ofNullable(schema).orElseThrow(() -> new IllegalArgumentException(
                    "input format avro needs the records' schema: set " + schemaOption.key())), maxFeatures);
            case AVRO_REGISTRY -> RecordDecoder.avroRegistry(mapping, registryUrl.orElseThrow(() -> new IllegalArgumentException(
                    "input format avro-registry needs the registry: set " + registryOption.key())), schema, maxFeatures);
            case EXAMPLE -> throw new IllegalStateException("the project's own records need no mapping");
        };
    }

    /** A mapping file or {@code builtin:NAME}, read now. */
    public static FeatureMapping mapping(String key, String spec) {
        try {
            return FeatureMapping.load(spec);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(key + " " + spec + ": " + e.getMessage(), e);
        }
    }

    private static Schema schema(String key, String file) {
        try {
            return new Schema.Parser().parse(Files.readString(Path.of(file)));
        } catch (IOException | SchemaParseException e) {
            throw new IllegalArgumentException(key + " " + file + ": not a readable Avro schema: " + e.getMessage(), e);
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
