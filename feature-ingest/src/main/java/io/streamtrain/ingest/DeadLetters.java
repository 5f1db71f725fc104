package io.streamtrain.ingest;

import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.schema.DeadLetter;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;

/**
 * Builds {@link DeadLetter} records. Pure functions with no Kafka client, so the Flink jobs use
 * them too (for values that are not Avro, out-of-range features, ...).
 */
public final class DeadLetters {
    /** Payloads above this are cut so a dead letter stays well below Kafka's 1 MiB message limit. */
    public static final int MAX_PAYLOAD_BYTES = 256 * 1024;
    public static final int MAX_DETAIL_CHARS = 1000;

    private DeadLetters() {}

    /** {@code line:N}. */
    public static String lineLocation(long lineNumber) {
        return "line:" + lineNumber;
    }

    /** {@code partition:P/offset:O}. */
    public static String recordLocation(int partition, long offset) {
        return "partition:" + partition + "/offset:" + offset;
    }

    /** A rejected input line, with the bytes it was read from (without its line end). */
    public static DeadLetter forLine(String source, long lineNumber, ParseResult.Rejected rejected, byte[] line, Instant time) {
        return of(source, lineLocation(lineNumber), rejected.reason().code(), rejected.detail(), line, time);
    }

    /** A rejected Kafka record (e.g. reason {@code not-avro}). */
    public static DeadLetter forRecord(String topic, int partition, long offset, String reason, String detail,
            byte[] value, Instant time) {
        return of(topic, recordLocation(partition, offset), reason, detail, value, time);
    }

    /** The general form; {@code payload} may be null (stored empty) and is cut at {@link #MAX_PAYLOAD_BYTES}. */
    public static DeadLetter of(String source, String location, String reason, String detail, byte[] payload, Instant time) {
        byte[] bytes = payload == null ? new byte[0] : payload;
        String d = detail == null ? "" : detail;
        if (bytes.length > MAX_PAYLOAD_BYTES) {
            d = d + " (payload cut from " + bytes.length + " bytes)";
            bytes = Arrays.copyOf(bytes, MAX_PAYLOAD_BYTES);
        }
        if (d.length() > MAX_DETAIL_CHARS) {
            d = d.substring(0, MAX_DETAIL_CHARS) + "...";
        }
        return new DeadLetter(source, location, reason, d, ByteBuffer.wrap(bytes), time);
    }
}
