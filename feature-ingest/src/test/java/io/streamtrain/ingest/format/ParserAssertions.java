package io.streamtrain.ingest.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.streamtrain.schema.Example;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import io.streamtrain.schema.Feature;
import java.util.List;

/** Shared helpers for the parser tests. */
final class ParserAssertions {
    static final long CLOCK = 1_700_000_000_000L;

    private ParserAssertions() {}

    static ParseOptions options(String source) {
        return ParseOptions.defaults(source).withClock(() -> CLOCK);
    }

    static Example ok(LineParser parser, String line) {
        ParseResult r = parser.parse(line, 7);
        return assertInstanceOf(ParseResult.Ok.class, r, () -> "expected Ok for '" + line + "', got " + r).example();
    }

    static void rejected(LineParser parser, RejectReason reason, String line) {
        ParseResult r = parser.parse(line, 7);
        ParseResult.Rejected rej = assertInstanceOf(ParseResult.Rejected.class, r, () -> "expected " + reason + " for '" + line + "'");
        assertEquals(reason, rej.reason(), () -> "'" + line + "': " + rej.detail());
    }

    static Feature f(int field, long id, float value) {
        return new Feature(field, id, value);
    }

    static void features(Example e, Feature... expected) {
        assertEquals(List.of(expected), e.getFeatures());
    }

    /** The documented hash from scratch: FNV-1a 64 over (field big-endian, UTF-8 bytes), then fmix64. */
    static long expectedHash(int field, String value) {
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        byte[] bytes = ByteBuffer.allocate(4 + text.length).putInt(field).put(text).array();
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** The documented categorical id: the low {@code bits} bits of the hash. */
    static long expectedId(int field, String value, int bits) {
        return expectedHash(field, value) & ((1L << bits) - 1);
    }
}
