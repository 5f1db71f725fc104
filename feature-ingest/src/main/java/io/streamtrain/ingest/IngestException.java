package io.streamtrain.ingest;

/** An ingest run failed (input unreadable, a record not acknowledged by Kafka, ...). */
public class IngestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public IngestException(String message, Throwable cause) {
        super(message, cause);
    }

    public IngestException(String message) {
        super(message);
    }
}
