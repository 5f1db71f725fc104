package io.streamtrain.train.batch;

import io.streamtrain.ingest.DeadLetters;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.ingest.format.RecordDecoder;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.io.Serializable;
import java.util.List;

/**
 * Decodes a training-topic record — an Avro {@link Example}, or a record in the user's own format
 * through their feature mapping ({@link RecordDecoder}) — and checks it can be trained on.
 * Anything else becomes a dead-letter record with the reason, so one bad producer can never
 * crash-loop the job.
 */
public final class ExampleValidator implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int maxFeatures;
    private final RecordDecoder userFormat;
    private transient AvroCodec<Example> codec;

    /** For a topic of Avro {@link Example}s. */
    public ExampleValidator(int maxFeatures) {
        this(maxFeatures, null);
    }

    /** @param userFormat decodes the topic's records; null for Avro {@link Example}s */
    public ExampleValidator(int maxFeatures, RecordDecoder userFormat) {
        this.maxFeatures = maxFeatures;
        this.userFormat = userFormat;
    }

    /** Exactly one of the two is set. */
    public record Verdict(BatchRecord record, Rejected deadLetter) {}

    /** {@code now}: the rejection time a dead letter carries. */
    public Verdict validate(SourceRecord in, long now) {
        if (userFormat != null) {
            ParseResult decoded = userFormat.decode(in.topic + "-" + in.partition, in.offset, in.timestamp, in.value);
            if (decoded instanceof ParseResult.Rejected r) {
                return reject(in, now, r.reason().code(), r.detail());
            }
            return check(in, now, ((ParseResult.Ok) decoded).example());
        }
        if (codec == null) {
            codec = AvroCodec.of(Example.class);
        }
        if (in.value == null) {
            return reject(in, now, "not-avro", "record has no value");
        }
        Example example;
        try {
            example = codec.decode(in.value);
        } catch (Exception e) {
            return reject(in, now, "not-avro", "not an Avro Example: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return check(in, now, example);
    }

    private Verdict check(SourceRecord in, long now, Example example) {
        float label = example.getLabel();
        if (label != 0f && label != 1f) {
            return reject(in, now, "bad-label", "label " + label + " is not 0 or 1");
        }
        List<Feature> features = example.getFeatures();
        if (features.size() > maxFeatures) {
            return reject(in, now, "too-many-features", features.size() + " features, limit " + maxFeatures);
        }
        for (Feature f : features) {
            if (!Float.isFinite(f.getValue())) {
                return reject(in, now, "non-finite-value", "feature " + f.getField() + ":" + f.getId() + " has value " + f.getValue());
            }
            if (!FeatureKey.isValidInput(f.getField(), f.getId())) {
                return reject(in, now, "feature-out-of-range", "feature " + f.getField() + ":" + f.getId() + " out of range");
            }
        }
        ExampleRows rows = ExampleRows.of(features);
        return new Verdict(new BatchRecord(in.offset, in.timestamp, label, rows.keys(), rows.values()), null);
    }

    private static Verdict reject(SourceRecord in, long now, String reason, String detail) {
        return new Verdict(null, new Rejected(in.topic, DeadLetters.recordLocation(in.partition, in.offset), reason, detail,
                in.value == null ? new byte[0] : in.value, now));
    }
}
