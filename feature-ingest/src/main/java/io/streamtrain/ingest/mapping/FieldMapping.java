package io.streamtrain.ingest.mapping;

import io.streamtrain.ingest.format.Buckets;
import io.streamtrain.schema.FeatureKey;
import java.io.Serializable;
import java.util.Locale;
import java.util.Objects;

/**
 * How one input column becomes features in one field.
 *
 * @param buckets for {@link Kind#BUCKETIZED} only
 * @param separator for {@link Kind#MULTI} string values (JSON arrays need none)
 * @param hashBits categorical ids are the low {@code hashBits} bits of the stable hash
 */
public record FieldMapping(String column, int field, Kind kind, Buckets buckets, String separator, int hashBits)
        implements Serializable {

    public enum Kind {
        /** One feature, id = {@code FeatureHashing.id(field, value)}, value 1. */
        CATEGORICAL,
        /** One feature, id 0, value = the number (a weight on the field). */
        NUMERIC,
        /** One feature, id = the number's bucket, value 1. */
        BUCKETIZED,
        /** One hashed feature per element (a list, or a string split at {@code separator}), value 1. */
        MULTI;

        static Kind parse(String s) {
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("type '" + s + "': expected categorical, numeric, bucketized or multi");
            }
        }
    }

    public FieldMapping {
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(kind, "kind");
        if (field < 0 || field > FeatureKey.DENSE_FIELD - 1) {
            throw new IllegalArgumentException("column " + column + ": field " + field + " outside 0..65533 (65534 and 65535 are reserved: dense chunks and bias)");
        }
        if (hashBits < 1 || hashBits > 48) {
            throw new IllegalArgumentException("column " + column + ": hash_bits " + hashBits + " outside 1..48");
        }
        if (kind == Kind.BUCKETIZED && buckets == null) {
            buckets = Buckets.LOG2;
        }
        if (kind == Kind.MULTI && (separator == null || separator.isEmpty())) {
            separator = "|";
        }
    }

    public static FieldMapping categorical(String column, int field, int hashBits) {
        return new FieldMapping(column, field, Kind.CATEGORICAL, null, null, hashBits);
    }
}
