package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParserAssertions.f;
import static io.streamtrain.ingest.format.ParserAssertions.features;
import static io.streamtrain.ingest.format.ParserAssertions.ok;
import static io.streamtrain.ingest.format.ParserAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.schema.Example;
import org.junit.jupiter.api.Test;

class LibffmParserTest {
    private final LineParser parser = LineFormat.LIBFFM.parser(ParserAssertions.options("train.ffm"));

    @Test
    void parsesFieldsIdsAndValues() {
        Example e = ok(parser, "0 1:2:0.5 65533:7:1 3:281474976710655:2 # comment\r");
        assertEquals("train.ffm:7", e.getId());
        assertEquals(0f, e.getLabel());
        features(e, f(1, 2, 0.5f), f(65533, 7, 1f), f(3, (1L << 48) - 1, 2f));
        assertEquals(1f, ok(parser, "+1 0:0:1").getLabel());
        assertEquals(0f, ok(parser, "-1 0:0:1").getLabel());
    }

    @Test
    void rejectsWithEveryReason() {
        rejected(parser, RejectReason.UNPARSABLE, "1 1:1");
        rejected(parser, RejectReason.UNPARSABLE, "1 a:1:1");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:b:1");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:1:1:1");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:1:x");
        rejected(parser, RejectReason.UNPARSABLE, "yes 1:1:1");
        rejected(parser, RejectReason.NON_FINITE_VALUE, "1 1:1:-inf");
        rejected(parser, RejectReason.NON_FINITE_VALUE, "1 1:1:NaN");
        rejected(parser, RejectReason.BAD_LABEL, "3 1:1:1");
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 65535:1:1"); // the reserved bias field
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 70000:1:1");
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 -2:1:1");
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 1:-1:1");
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 1:281474976710656:1");
        rejected(parser, RejectReason.EMPTY, "");
        rejected(parser, RejectReason.EMPTY, "0   ");
        LineParser two = LineFormat.LIBFFM.parser(ParserAssertions.options("s").withMaxFeatures(2));
        rejected(two, RejectReason.TOO_MANY_FEATURES, "1 1:1:1 2:2:1 3:3:1");
    }
}
