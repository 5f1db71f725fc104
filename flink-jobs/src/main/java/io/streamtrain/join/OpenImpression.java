package io.streamtrain.join;

/**
 * Keyed state of one impression id: open (waiting for a click or its window's end) or, once
 * decided, a tombstone that remembers the id for the dedup retention.
 */
public class OpenImpression {
    /** Impression event time, epoch millis. */
    public long time;
    /** The unlabelled Example, Avro-encoded; null once decided. */
    public byte[] example;
    public boolean closed;
    public boolean clicked;

    public OpenImpression() {}

    OpenImpression(long time, byte[] example) {
        this.time = time;
        this.example = example;
    }
}
