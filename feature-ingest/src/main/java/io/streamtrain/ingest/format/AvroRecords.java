package io.streamtrain.ingest.format;

import io.streamtrain.ingest.mapping.FeatureMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Topic records in Avro: plain (every record written with one known schema) or in the schema
 * registry's wire format (each record names its writer schema's id). Records are read as generic
 * records, with Avro's schema resolution when a reader schema differs from the writer's, and their
 * fields are the mapping's columns: strings, enums, numbers and booleans as values, arrays as
 * multi-valued columns, null as missing, anything else as its JSON text.
 */
final class AvroRecords implements RecordDecoder {
    private static final long serialVersionUID = 1L;
    private static final int FRAMING = 5; // magic byte 0, then the schema id as a 4-byte big-endian int

    private final FeatureMapping mapping;
    private final String readerSchema; // JSON; null: read each record as written
    private final SchemaRegistry registry; // null: plain Avro written with the reader schema
    private final int maxFeatures;

    private transient Reading plain;
    private transient Map<Integer, Reading> byWriterId;
    private transient BinaryDecoder decoder;

    /** How records of one writer schema are read (as {@code schema}), or why none can be. */
    private record Reading(GenericDatumReader<GenericRecord> reader, Schema schema, RejectReason problem, String detail) {}

    AvroRecords(FeatureMapping mapping, Schema readerSchema, SchemaRegistry registry, int maxFeatures) {
        if (readerSchema == null && registry == null) {
            throw new IllegalArgumentException("plain Avro records need the schema they were written with");
        }
        if (readerSchema != null && readerSchema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("the reader schema must be an Avro record, not " + readerSchema.getType());
        }
        this.mapping = mapping;
        this.readerSchema = readerSchema == null ? null : readerSchema.toString();
        this.registry = registry;
        this.maxFeatures = maxFeatures;
    }

    @Override
    public FeatureMapping mapping() {
        return mapping;
    }

    @Override
    public int maxFeatures() {
        return maxFeatures;
    }

    @Override
    public Read read(byte[] value) {
        if (value == null) {
            return Read.rejected(RejectReason.NOT_AVRO, "record has no value");
        }
        Reading reading;
        int start;
        if (registry == null) {
            if (plain == null) {
                Schema schema = new Schema.Parser().parse(readerSchema);
                plain = reading(schema, schema);
            }
            reading = plain;
            start = 0;
        } else {
            if (value.length < FRAMING || value[0] != 0) {
                return Read.rejected(RejectReason.NOT_AVRO, "no schema registry framing (a zero byte and a 4-byte schema id)");
            }
            int id = ByteBuffer.wrap(value, 1, 4).getInt();
            reading = forWriter(id);
            if (reading == null) {
                return Read.rejected(RejectReason.UNKNOWN_SCHEMA, "schema id " + id + " is not in the registry at " + registry.url());
            }
            start = FRAMING;
        }
        if (reading.problem() != null) {
            return Read.rejected(reading.problem(), reading.detail());
        }
        GenericRecord record;
        try {
            decoder = DecoderFactory.get().binaryDecoder(value, start, value.length - start, decoder);
            record = reading.reader().read(null, decoder);
            if (!decoder.isEnd()) {
                return Read.rejected(RejectReason.NOT_AVRO, "bytes left over after the record: written with another schema?");
            }
        } catch (AvroTypeException e) {
            boolean missing = String.valueOf(e.getMessage()).contains("missing required field");
            return Read.rejected(missing ? RejectReason.MISSING_FIELD : RejectReason.NOT_AVRO, "does not resolve to the reader schema: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            return Read.rejected(RejectReason.NOT_AVRO, "does not decode: " + e);
        }
        Schema schema = reading.schema();
        return Read.of(column -> value(record.get(column)), column -> schema.getField(column) != null);
    }

    /** The reading of a registered writer schema, fetched once; null when the registry does not know the id. */
    private Reading forWriter(int id) {
        if (byWriterId == null) {
            byWriterId = new HashMap<>();
        }
        Reading known = byWriterId.get(id);
        if (known != null) {
            return known;
        }
        Optional<SchemaRegistry.Registered> registered;
        try {
            registered = registry.schema(id);
        } catch (IOException e) {
            throw new UncheckedIOException("schema registry at " + registry.url() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while fetching schema id " + id, e);
        }
        if (registered.isEmpty()) {
            return null; // not cached: it may be registered later
        }
        Reading reading;
        try {
            if (!registered.get().type().equals("AVRO")) {
                throw new SchemaParseException("it is a " + registered.get().type() + " schema");
            }
            Schema writer = new Schema.Parser().parse(registered.get().text());
            reading = reading(writer, readerSchema == null ? writer : new Schema.Parser().parse(readerSchema));
        } catch (SchemaParseException e) {
            reading = new Reading(null, null, RejectReason.NOT_AVRO, "schema id " + id + " is not an Avro schema this reader can parse: " + e.getMessage());
        }
        byWriterId.put(id, reading);
        return reading;
    }

    private Reading reading(Schema writer, Schema reader) {
        if (reader.getType() != Schema.Type.RECORD) {
            return new Reading(null, null, RejectReason.NOT_AVRO, "the schema is a " + reader.getType() + ", not a record");
        }
        return new Reading(new GenericDatumReader<>(writer, reader), reader, null, null);
    }

    private static Object value(Object v) {
        if (v == null || v instanceof Number || v instanceof Boolean) {
            return v;
        }
        if (v instanceof Collection<?> c) {
            List<Object> list = new ArrayList<>(c.size());
            c.forEach(e -> list.add(value(e)));
            return list;
        }
        return v.toString(); // Utf8, enum symbols; records and maps as their JSON text
    }
}
