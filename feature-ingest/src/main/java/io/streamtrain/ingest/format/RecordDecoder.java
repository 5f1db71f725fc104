package io.streamtrain.ingest.format;

import io.streamtrain.ingest.mapping.FeatureMapping;
import java.io.Serializable;
import org.apache.avro.Schema;

/**
 * Reads the records of a user's own topic — JSON objects, plain Avro, or Avro in the schema
 * registry's wire format — through the same {@link FeatureMapping} that file ingest uses, into
 * {@link io.streamtrain.schema.Example}s, or rejections for the dead-letter topic: a record that
 * does not decode ({@code unparsable}, {@code not-avro}, {@code unknown-schema}), lacks a column
 * the mapping reads ({@code missing-field}: absent, not merely null), or fails the mapping (a bad
 * label, no features, ...). Serializable: a job carries it to its task managers.
 */
public interface RecordDecoder extends Serializable {

    /**
     * @param source names the record in default example ids ({@code <source>:<offset>}), e.g. the topic and partition
     * @param timestamp the record's Kafka timestamp in epoch millis: its event time when the mapping has no time column
     * @param value the record's value, possibly null
     */
    ParseResult decode(String source, long offset, long timestamp, byte[] value);

    /** JSON objects, one per record: top-level keys are the columns (as in JSON lines files). */
    static RecordDecoder json(FeatureMapping mapping, int maxFeatures) {
        return new JsonRecords(mapping, maxFeatures);
    }

    /** Avro binary records, each written with {@code schema} (no framing). */
    static RecordDecoder avro(FeatureMapping mapping, Schema schema, int maxFeatures) {
        return new AvroRecords(mapping, schema, null, maxFeatures);
    }

    /**
     * Avro in the schema registry's wire format: a zero byte, the writer schema's id (4 bytes, big
     * endian), the Avro binary. Writer schemas come from the registry's REST API ({@code GET
     * <url>/schemas/ids/<id>}, as Confluent's registry and Apicurio's compatible API serve it), each
     * fetched once.
     *
     * @param readerSchema the schema to read every record as (Avro's schema resolution: fields the
     *     writer lacks take their defaults, fields the reader lacks are skipped); null reads each
     *     record as written
     */
    static RecordDecoder avroRegistry(FeatureMapping mapping, String registryUrl, Schema readerSchema, int maxFeatures) {
        return new AvroRecords(mapping, readerSchema, new SchemaRegistry(registryUrl), maxFeatures);
    }
}
