package io.streamtrain.ingest.format;

/** Why an input line was rejected; {@link #code()} is the string stored in {@code DeadLetter.reason}. */
public enum RejectReason {
    /** Not in the format at all: wrong token shape, a non-number where a number belongs, wrong column count. */
    UNPARSABLE("unparsable"),
    /** A feature value is NaN or infinite (written so, or overflowing a float). */
    NON_FINITE_VALUE("non-finite-value"),
    /** The label is a number but not 0/1 (or -1/+1). */
    BAD_LABEL("bad-label"),
    /** More features than the configured limit. */
    TOO_MANY_FEATURES("too-many-features"),
    /** A field or id that {@code FeatureKey.isValidInput} rejects (negative, too large, or the bias field). */
    FEATURE_OUT_OF_RANGE("feature-out-of-range"),
    /** A blank line, or a label with no features. */
    EMPTY("empty"),
    /** A topic record that does not decode as Avro with its (writer and reader) schemas, or lacks the registry framing. */
    NOT_AVRO("not-avro"),
    /** A topic record whose schema id the schema registry does not know. */
    UNKNOWN_SCHEMA("unknown-schema"),
    /** A topic record without a column the mapping reads (absent, as opposed to null or empty). */
    MISSING_FIELD("missing-field");

    private final String code;

    RejectReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    @Override
    public String toString() {
        return code;
    }
}
