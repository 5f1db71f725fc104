package io.streamtrain.train.batch;

import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes a training-topic record and checks it can be trained on. Anything else becomes a
 * dead-letter record with the reason, so one bad producer can never crash-loop the job.
 */
public final class ExampleValidator implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int maxFeatures;
    private transient AvroCodec<Example> codec;

    public ExampleValidator(int maxFeatures) {
        this.maxFeatures = maxFeatures;
    }

    /** Exactly one of the two is set. */
    public record Verdict(BatchRecord record, Rejected deadLetter) {}

    public Verdict validate(SourceRecord in) {
        if (codec == null) {
            codec = AvroCodec.of(Example.class);
        }
        if (in.value == null) {
            return reject(in, "not-avro", "record has no value");
        }
        Example example;
        try {
            example = codec.decode(in.value);
        } catch (Exception e) {
            return reject(in, "not-avro", "not an Avro Example: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        float label = example.getLabel();
        if (label != 0f && label != 1f) {
            return reject(in, "bad-label", "label " + label + " is not 0 or 1");
        }
        List<Feature> features = example.getFeatures();
        if (features.size() > maxFeatures) {
            return reject(in, "too-many-features", features.size() + " features, limit " + maxFeatures);
        }
        long[] keys = new long[features.size()];
        float[] values = new float[features.size()];
        int n = 0;
        for (Feature f : features) {
            if (!Float.isFinite(f.getValue())) {
                return reject(in, "non-finite-value", "feature " + f.getField() + ":" + f.getId() + " has value " + f.getValue());
            }
            if (!FeatureKey.isValidInput(f.getField(), f.getId())) {
                return reject(in, "feature-out-of-range", "feature " + f.getField() + ":" + f.getId() + " out of range");
            }
            keys[n] = FeatureKey.of(f.getField(), f.getId());
            values[n] = f.getValue();
            n++;
        }
        return new Verdict(mergeDuplicates(in, label, keys, values), null);
    }

    /** A feature listed twice in one example counts once, with its values summed. */
    private static BatchRecord mergeDuplicates(SourceRecord in, float label, long[] keys, float[] values) {
        int n = keys.length;
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = keys[i - 1] < keys[i];
        }
        if (!sorted) {
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(keys[a], keys[b]));
            long[] k2 = new long[n];
            float[] v2 = new float[n];
            int m = 0;
            for (int idx : order) {
                if (m > 0 && k2[m - 1] == keys[idx]) {
                    v2[m - 1] += values[idx];
                } else {
                    k2[m] = keys[idx];
                    v2[m] = values[idx];
                    m++;
                }
            }
            return new BatchRecord(in.offset, in.timestamp, label, Arrays.copyOf(k2, m), Arrays.copyOf(v2, m));
        }
        return new BatchRecord(in.offset, in.timestamp, label, keys, values);
    }

    private static Verdict reject(SourceRecord in, String reason, String detail) {
        return new Verdict(null, new Rejected(in.topic, "partition:" + in.partition + "/offset:" + in.offset, reason, detail,
                in.value == null ? new byte[0] : in.value, System.currentTimeMillis()));
    }
}
