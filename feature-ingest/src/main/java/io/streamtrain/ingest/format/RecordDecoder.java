package io.streamtrain.ingest.format;

import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.RawRecord;
import java.io.Serializable;
import java.util.Collection;
import java.util.function.Predicate;
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
     * One record's raw values, or why it has none: {@code raw} reads its columns, {@code has} tells
     * which it has at all (absent, as opposed to null).
     */
    record Read(RawRecord raw, Predicate<String> has, RejectReason reason, String detail) {
        static Read of(RawRecord raw, Predicate<String> has) {
            return new Read(raw, has, null, null);
        }

        static Read rejected(RejectReason reason, String detail) {
            return new Read(null, null, reason, detail);
        }

        public boolean ok() {
            return reason == null;
        }

        /** The first of {@code columns} the record lacks; null when it has them all. */
        public String firstMissing(Collection<String> columns) {
            for (String c : columns) {
                if (!has.test(c)) {
                    return c;
                }
            }
            return null;
        }
    }

    /** Decodes the record's value into its raw values (no mapping applied yet). */
    Read read(byte[] value);

    /** The mapping {@link #decode} applies. */
    FeatureMapping mapping();

    /**
     * @param source names the record in default example ids ({@code <source>:<offset>}), e.g. the topic and partition
     * @param timestamp the record's Kafka timestamp in epoch millis: its event time when the mapping has no time column
     * @param value the record's value, possibly null
     */
    default ParseResult decode(String source, long offset, long timestamp, byte[] value) {
        Read read = read(value);
        if (!read.ok()) {
            return ParseResult.reject(read.reason(), read.detail());
        }
        String missing = read.firstMissing(mapping().columns());
        if (missing != null) {
            return ParseResult.reject(RejectReason.MISSING_FIELD, "no \"" + missing + "\" in the record (the mapping reads it)");
        }
        return MappedRecords.parse(mapping(), MappedRecords.recordOptions(source, maxFeatures(), timestamp), read.raw(), offset);
    }

    /** Records with more features are rejected ({@code too-many-features}). */
    int maxFeatures();

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
