package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParserAssertions.expectedId;
import static io.streamtrain.ingest.format.ParserAssertions.f;
import static io.streamtrain.ingest.format.ParserAssertions.features;
import static io.streamtrain.ingest.format.ParserAssertions.ok;
import static io.streamtrain.ingest.format.ParserAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.schema.Example;
import org.junit.jupiter.api.Test;

/** JSON lines through the same mapping as {@link CsvParserTest}: the same record gives the same features. */
class JsonLinesParserTest {
    private static LineParser people() throws Exception {
        return LineFormat.JSONL.parser(ParserAssertions.options("people.jsonl"), CsvParserTest.mapping("people.json"));
    }

    @Test
    void theSameRecordAsTheCsvRowGivesTheSameExample() throws Exception {
        String json = "{\"rid\":\"r1\",\"click\":1,\"ts\":1700000000123,\"user\":\"alice\",\"price\":2.5,\"visits\":5,"
                + "\"age\":30,\"tags\":[\"a\",\"b,c\"],\"unused\":{\"x\":1}}";
        Example fromJson = ok(people(), json);
        Example fromCsv = ok(LineFormat.CSV.parser(ParserAssertions.options("people.jsonl"), CsvParserTest.mapping("people.json"))
                .afterHeader(CsvParserTest.HEADER), "r1,1,1700000000123,alice,2.5,5,30,\"a|b,c\",ignored");
        assertEquals(fromCsv, fromJson);
        features(fromJson, f(0, expectedId(0, "alice", 20), 1f), f(1, 0, 2.5f), f(2, 3, 1f), f(3, 2, 1f),
                f(4, expectedId(4, "a", 12), 1f), f(4, expectedId(4, "b,c", 12), 1f));
    }

    @Test
    void jsonTypes() throws Exception {
        LineParser p = people();
        Example e = ok(p, "{\"click\":true,\"user\":42,\"tags\":\"x|y\",\"price\":null,\"age\":\"19\"}");
        assertEquals(1f, e.getLabel(), "true is a positive");
        assertEquals("people.jsonl:7", e.getId());
        assertEquals(ParserAssertions.CLOCK, e.getEventTime().toEpochMilli());
        features(e, f(0, expectedId(0, "42", 20), 1f),  // a number hashes as its JSON text
                f(3, 1, 1f),                            // a numeric string is a number
                f(4, expectedId(4, "x", 12), 1f), f(4, expectedId(4, "y", 12), 1f)); // a string splits at the separator
        assertEquals(0f, ok(p, "{\"click\":false,\"user\":\"u\"}").getLabel());
        features(ok(p, "{\"click\":0,\"user\":\"u\",\"tags\":[\"t\",null,\"\"]}"), f(0, expectedId(0, "u", 20), 1f),
                f(4, expectedId(4, "t", 12), 1f));
    }

    @Test
    void badLinesAreRejectedWithTheirReason() throws Exception {
        LineParser p = people();
        rejected(p, RejectReason.UNPARSABLE, "{\"click\":1,\"user\":");
        rejected(p, RejectReason.UNPARSABLE, "[1,2]");
        rejected(p, RejectReason.UNPARSABLE, "click=1");
        rejected(p, RejectReason.UNPARSABLE, "{\"click\":1,\"user\":\"u\",\"price\":\"cheap\"}");
        rejected(p, RejectReason.BAD_LABEL, "{\"click\":3,\"user\":\"u\"}");
        rejected(p, RejectReason.BAD_LABEL, "{\"user\":\"u\"}");
        rejected(p, RejectReason.NON_FINITE_VALUE, "{\"click\":1,\"user\":\"u\",\"price\":1e300}");
        rejected(p, RejectReason.EMPTY, "{\"click\":1}");
        rejected(p, RejectReason.EMPTY, "   ");
    }
}
