package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParserAssertions.expectedId;
import static io.streamtrain.ingest.format.ParserAssertions.f;
import static io.streamtrain.ingest.format.ParserAssertions.features;
import static io.streamtrain.ingest.format.ParserAssertions.ok;
import static io.streamtrain.ingest.format.ParserAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CSV and Avazu through their mappings; every expected id is the documented hash computed from scratch. */
class CsvParserTest {
    static final String HEADER = "rid,click,ts,user,price,visits,age,tags,unused";

    static FeatureMapping mapping(String name) throws Exception {
        return FeatureMapping.read(Path.of(CsvParserTest.class.getResource("/mappings-test/" + name).toURI()));
    }

    private static LineParser people() throws Exception {
        LineParser parser = LineFormat.CSV.parser(ParserAssertions.options("people.csv"), mapping("people.json"));
        assertTrue(parser.expectsHeader(), "without declared columns the header names them");
        return parser.afterHeader(HEADER);
    }

    @Test
    void everyKindOfColumnMapsByTheDocumentedRules() throws Exception {
        Example e = ok(people(), "r1,1,1700000000123,alice,2.5,5,30,\"a|b,c\",ignored");
        assertEquals("r1", e.getId());
        assertEquals(1700000000123L, e.getEventTime().toEpochMilli());
        assertEquals(1f, e.getLabel());
        features(e,
                f(0, expectedId(0, "alice", 20), 1f),  // categorical, the mapping's hash_bits
                f(1, 0, 2.5f),                         // numeric: id 0, the value as weight
                f(2, 3, 1f),                           // log2 bucket of 5: floor(log2(5 + 1)) + 1 = 3
                f(3, 2, 1f),                           // 25 <= 30 < 35: the third bucket, id 2
                f(4, expectedId(4, "a", 12), 1f),      // multi: one feature per element, its own hash_bits
                f(4, expectedId(4, "b,c", 12), 1f));   // a quoted field keeps the delimiter
    }

    @Test
    void bucketEdgesLabelsAndMissingValues() throws Exception {
        LineParser p = people();
        List<Long> ages = new ArrayList<>();
        for (String age : new String[] {"17", "18", "24.9", "35", "50", "99"}) {
            ages.add(ok(p, "r,0,1,u," + "," + "," + age + ",,").getFeatures().get(1).getId());
        }
        assertEquals(List.of(0L, 1L, 1L, 3L, 4L, 4L), ages, "id i for b(i-1) <= v < b(i)");
        assertEquals(List.of(1L, 2L, 2L, 3L, 4L), List.of(0L, 1L, 2L, 3L, 7L).stream()
                .map(v -> ok(p, "r,0,1,u,," + v + ",,,").getFeatures().get(1).getId()).toList(), "log2 buckets of 0, 1, 2, 3, 7");
        Example sparse = ok(p, ",-1,,bob,,,,,");
        assertEquals(0f, sparse.getLabel(), "-1 reads as 0");
        assertEquals("people.csv:7", sparse.getId(), "no id value: <source>:<line>");
        assertEquals(ParserAssertions.CLOCK, sparse.getEventTime().toEpochMilli(), "no time value: the clock");
        features(sparse, f(0, expectedId(0, "bob", 20), 1f));
        features(ok(p, "r,1,1,\"say \"\"hi\"\"\",,,,,"), f(0, expectedId(0, "say \"hi\"", 20), 1f));
    }

    @Test
    void badRowsAreRejectedWithTheirReason() throws Exception {
        LineParser p = people();
        rejected(p, RejectReason.UNPARSABLE, "r1,1,1,alice");                       // too few fields
        rejected(p, RejectReason.UNPARSABLE, "r1,1,1,alice,1,1,1,a,x,extra");        // too many
        rejected(p, RejectReason.UNPARSABLE, "r1,1,1,\"alice,1,1,1,a,x");            // unclosed quote
        rejected(p, RejectReason.UNPARSABLE, "r1,1,1,alice,cheap,1,1,a,x");          // numeric that is not a number
        rejected(p, RejectReason.UNPARSABLE, "r1,1,soon,alice,1,1,1,a,x");           // time not epoch millis
        rejected(p, RejectReason.NON_FINITE_VALUE, "r1,1,1,alice,1e40,1,1,a,x");     // overflows a float
        rejected(p, RejectReason.BAD_LABEL, "r1,2,1,alice,1,1,1,a,x");
        rejected(p, RejectReason.BAD_LABEL, "r1,,1,alice,1,1,1,a,x");                // label missing
        rejected(p, RejectReason.EMPTY, "r1,1,1,,,,,,x");                            // no mapped value
        rejected(p, RejectReason.EMPTY, "");
        LineParser three = LineFormat.CSV.parser(ParserAssertions.options("s").withMaxFeatures(3), mapping("people.json"))
                .afterHeader(HEADER);
        rejected(three, RejectReason.TOO_MANY_FEATURES, "r1,1,1,alice,1,1,1,a|b,x");
    }

    @Test
    void fieldsFollowRfc4180() throws Exception {
        LineParser p = people();
        features(ok(p, "r,1,1,\"two\r\nlines\",,,,,"), f(0, expectedId(0, "two\r\nlines", 20), 1f)); // a quoted line break is data
        features(ok(p, "r,1,1,5\" screen,,,,,"), f(0, expectedId(0, "5\" screen", 20), 1f));         // a quote inside a field is data
        features(ok(p, "r,1,1,\"\",,0,,,"), f(2, 1, 1f));                                                 // "" is an empty field; so is the last
        ParseResult.Rejected afterQuote = assertInstanceOf(ParseResult.Rejected.class, p.parse("r,1,1,\"al\"ice,,,,,", 9));
        assertEquals(RejectReason.UNPARSABLE, afterQuote.reason());
        assertTrue(afterQuote.detail().contains("Expected column separator"), afterQuote.detail());
        ParseResult.Rejected unclosed = assertInstanceOf(ParseResult.Rejected.class, p.parse("r,1,1,\"alice,,,,,", 9));
        assertEquals("unclosed quote", unclosed.detail());
        ParseResult.Rejected twoRows = assertInstanceOf(ParseResult.Rejected.class, p.parse("r,1,1,a,,,,,\rr,1,1,b,,,,,", 9));
        assertEquals("a line break outside quotes", twoRows.detail());
    }

    @Test
    void aRecordGoesOnWhileAQuotedFieldIsOpen() throws Exception {
        LineParser p = people();
        assertTrue(p.continuesOnNextLine("r,1,1,\"first line"), "a quoted field open at the line's end");
        assertTrue(p.continuesOnNextLine("r,1,1,\"first line\n\"\"quoted\"\" second"), "still open after a doubled quote");
        assertFalse(p.continuesOnNextLine("r,1,1,\"first line\r\nsecond\",,,,,"), "closed on the second line");
        assertFalse(p.continuesOnNextLine("r,1,1,5\" screen,,,,,"), "a quote inside an unquoted field opens nothing");
        assertFalse(p.continuesOnNextLine("r,1,1,alice,,,,,"));
        assertFalse(LineFormat.LIBSVM.parser(ParserAssertions.options("s")).continuesOnNextLine("1 \"3:1"), "only CSV records span lines");
        features(ok(p, "r,1,1,\"first line\r\nsecond\",,,,,"), f(0, expectedId(0, "first line\r\nsecond", 20), 1f));
    }

    @Test
    void declaredColumnsDelimiterAndHeaderChecks() throws Exception {
        LineParser p = LineFormat.CSV.parser(ParserAssertions.options("s"), mapping("people-columns.json"));
        assertFalse(p.expectsHeader());
        features(ok(p, "1;carol;40\r"), f(0, expectedId(0, "carol", 24), 1f), f(3, 3, 1f));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LineFormat.CSV.parser(ParserAssertions.options("s"), mapping("people.json")).afterHeader("rid,click,user"));
        assertTrue(e.getMessage().contains("which is not among [rid, click, user]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LineFormat.CSV.parser(ParserAssertions.options("s")),
                "csv needs a mapping");
        assertThrows(IllegalArgumentException.class,
                () -> LineFormat.CRITEO.parser(ParserAssertions.options("s"), mapping("people.json")), "criteo has its own");
    }

    /** The first rows of Avazu's train file (header and a row as published). */
    @Test
    void avazuRowsThroughTheBuiltInMapping() {
        String header = "id,click,hour,C1,banner_pos,site_id,site_domain,site_category,app_id,app_domain,app_category,"
                + "device_id,device_ip,device_model,device_type,device_conn_type,C14,C15,C16,C17,C18,C19,C20,C21";
        String row = "1000009418151094273,0,14102100,1005,0,1fbe01fe,f3845767,28905ebd,ecad2386,7801e8d9,07d7df22,"
                + "a99f214a,ddd2926e,44956a24,1,2,15706,320,50,1722,0,35,-1,79";
        LineParser p = LineFormat.AVAZU.parser(ParserAssertions.options("train.csv"));
        assertTrue(p.expectsHeader());
        Example e = ok(p.afterHeader(header), row);
        assertEquals("1000009418151094273", e.getId());
        assertEquals(0f, e.getLabel());
        String[] values = row.split(",");
        List<Feature> expected = new ArrayList<>();
        for (int column = 2; column < values.length; column++) {
            expected.add(f(column - 2, expectedId(column - 2, values[column], 24), 1f)); // field = position after the label
        }
        assertEquals(expected, e.getFeatures());
        assertThrows(IllegalArgumentException.class, () -> p.afterHeader(header.replace("C21", "C22")),
                "a file that is not Avazu's layout is refused at the header");
        rejected(p.afterHeader(header), RejectReason.UNPARSABLE, row.substring(row.indexOf(',') + 1)); // test file: no click column
    }
}
