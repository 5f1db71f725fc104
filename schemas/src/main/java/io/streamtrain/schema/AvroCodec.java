package io.streamtrain.schema;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Plain Avro binary encoding (no container header, no registry framing) of one generated record
 * type: the value format of every streamtrain Kafka topic. Not thread-safe; one per thread/task.
 */
public final class AvroCodec<T extends SpecificRecord> implements Serializable {
    private static final long serialVersionUID = 1L;

    static {
        trustOwnRecords();
    }

    private final Class<T> type;
    private transient SpecificDatumWriter<T> writer;
    private transient SpecificDatumReader<T> reader;
    private transient BinaryEncoder encoder;
    private transient BinaryDecoder decoder;
    private transient ByteArrayOutputStream buffer;

    public AvroCodec(Class<T> type) {
        this.type = type;
    }

    /**
     * Avro 1.12 only instantiates classes it trusts while reading; add ours to whatever is trusted
     * already. Idempotent, and done before any decode in this JVM (the class's static initialiser).
     */
    public static synchronized void trustOwnRecords() {
        ClassSecurityValidator.ClassSecurityPredicate current = ClassSecurityValidator.getGlobal();
        if (current instanceof OwnRecords) {
            return;
        }
        ClassSecurityValidator.setGlobal(new OwnRecords(current));
    }

    /** Trusts generated records in this package (and their nested types), then defers. */
    private record OwnRecords(ClassSecurityValidator.ClassSecurityPredicate next) implements ClassSecurityValidator.ClassSecurityPredicate {
        @Override
        public boolean isTrusted(Class<?> c) {
            return c.getName().startsWith("io.streamtrain.schema.") || next.isTrusted(c);
        }
    }

    public static <T extends SpecificRecord> AvroCodec<T> of(Class<T> type) {
        return new AvroCodec<>(type);
    }

    public Schema schema() {
        return org.apache.avro.specific.SpecificData.get().getSchema(type);
    }

    public byte[] encode(T record) {
        if (writer == null) {
            writer = new SpecificDatumWriter<>(type);
            buffer = new ByteArrayOutputStream(256);
        }
        buffer.reset();
        try {
            encoder = EncoderFactory.get().directBinaryEncoder(buffer, encoder);
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    /**
     * Decodes one record; throws {@link IOException} (or a runtime exception from Avro) when the
     * bytes are not a valid record of this type, including trailing garbage.
     */
    public T decode(byte[] bytes) throws IOException {
        if (reader == null) {
            reader = new SpecificDatumReader<>(type);
        }
        decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
        T record = reader.read(null, decoder);
        if (!decoder.isEnd()) {
            throw new IOException("trailing bytes after a " + type.getSimpleName() + " record");
        }
        return record;
    }
}
