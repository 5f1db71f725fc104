package io.streamtrain.ingest.mapping;

import io.streamtrain.ingest.format.RejectReason;

/** A record the mapping cannot turn into features; the caller dead-letters it with {@link #reason()}. */
public final class MappingException extends Exception {
    private static final long serialVersionUID = 1L;
    private final RejectReason reason;

    public MappingException(RejectReason reason, String detail) {
        super(detail, null, false, false); // per-record control flow: no stack trace
        this.reason = reason;
    }

    public RejectReason reason() {
        return reason;
    }
}
