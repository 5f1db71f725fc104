package io.streamtrain.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * The metrics topic's codec. {@link AvroCodec} reads with the current schema only, so records
 * written by a job of the first version (without the fields added later) are read here through
 * Avro schema resolution from that version's schema, and get the new fields' defaults.
 * Not thread-safe; one per thread.
 */
public final class TrainingMetricsCodec implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final String V1 = "TrainingMetrics-v1.avsc";

    private final AvroCodec<TrainingMetrics> current = AvroCodec.of(TrainingMetrics.class);
    private transient SpecificDatumReader<TrainingMetrics> fromV1;
    private transient BinaryDecoder decoder;

    public byte[] encode(TrainingMetrics m) {
        return current.encode(m);
    }

    public TrainingMetrics decode(byte[] bytes) throws IOException {
        try {
            return current.decode(bytes);
        } catch (IOException | RuntimeException newer) {
            try {
                return decodeV1(bytes);
            } catch (IOException | RuntimeException older) {
                newer.addSuppressed(older);
                throw newer instanceof IOException io ? io : new IOException("not a TrainingMetrics record", newer);
            }
        }
    }

    private TrainingMetrics decodeV1(byte[] bytes) throws IOException {
        if (fromV1 == null) {
            fromV1 = new SpecificDatumReader<>(v1Schema(), TrainingMetrics.getClassSchema());
        }
        decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
        TrainingMetrics m = fromV1.read(null, decoder);
        if (!decoder.isEnd()) {
            throw new IOException("trailing bytes after a TrainingMetrics v1 record");
        }
        return m;
    }

    /** The first version's schema, kept as a resource beside the generated classes. */
    public static Schema v1Schema() {
        try (InputStream in = TrainingMetricsCodec.class.getResourceAsStream(V1)) {
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
