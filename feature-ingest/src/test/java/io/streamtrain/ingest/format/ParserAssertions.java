package io.streamtrain.ingest.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.streamtrain.schema.Example;
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
}
