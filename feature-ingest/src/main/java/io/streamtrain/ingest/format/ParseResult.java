package io.streamtrain.ingest.format;

import io.streamtrain.schema.Example;

/** The outcome of parsing one line: an {@link Example}, or a rejection with a reason and a detail. */
public sealed interface ParseResult permits ParseResult.Ok, ParseResult.Rejected {

    record Ok(Example example) implements ParseResult {}

    record Rejected(RejectReason reason, String detail) implements ParseResult {}

    static ParseResult ok(Example example) {
        return new Ok(example);
    }

    static ParseResult reject(RejectReason reason, String detail) {
        return new Rejected(reason, detail);
    }

    default boolean isOk() {
        return this instanceof Ok;
    }
}
