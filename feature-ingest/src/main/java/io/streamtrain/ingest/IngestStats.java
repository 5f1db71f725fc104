package io.streamtrain.ingest;

import java.util.Locale;

/**
 * The outcome of an ingest run.
 *
 * @param records examples written to the topic
 * @param bad inputs written to the dead-letter topic
 * @param bytes Avro value bytes written to both topics
 */
public record IngestStats(long records, long bad, long bytes, double seconds, String topic, String deadLetterTopic) {

    /** Examples per second. */
    public double rate() {
        return seconds > 0 ? records / seconds : 0;
    }

    /** {@code ingest: records=N bad=B bytes=X seconds=S rate=R/s topic=T dead_letter_topic=D}. */
    public String summaryLine() {
        return String.format(Locale.ROOT, "ingest: records=%d bad=%d bytes=%d seconds=%.3f rate=%.0f/s topic=%s dead_letter_topic=%s",
                records, bad, bytes, seconds, rate(), topic, deadLetterTopic);
    }
}
