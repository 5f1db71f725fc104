package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParserAssertions.f;
import static io.streamtrain.ingest.format.ParserAssertions.features;
import static io.streamtrain.ingest.format.ParserAssertions.ok;
import static io.streamtrain.ingest.format.ParserAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.schema.Example;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LibsvmParserTest {
    private final LineParser parser = LineFormat.LIBSVM.parser(ParserAssertions.options("train.svm"));

    @Test
    void parsesLabelsFeaturesIdAndTime() {
        Example e = ok(parser, "1 3:0.5 10:1");
        assertEquals("train.svm:7", e.getId());
        assertEquals(Instant.ofEpochMilli(ParserAssertions.CLOCK), e.getEventTime());
        assertEquals(1f, e.getLabel());
        assertEquals(1f, e.getSampleRate());
        assertEquals(0, e.getDense().size());
        features(e, f(0, 3, 0.5f), f(0, 10, 1f));
    }

    @Test
    void acceptsSignedLabelsCommentsQidTabsAndCrlf() {
        assertEquals(0f, ok(parser, "-1 1:1").getLabel());
        assertEquals(1f, ok(parser, "+1 1:1").getLabel());
        assertEquals(0f, ok(parser, "0.0 1:1").getLabel());
        features(ok(parser, "1\t2:2.5e-1  4:-3 # a comment"), f(0, 2, 0.25f), f(0, 4, -3f));
        features(ok(parser, "1 qid:3 5:1\r"), f(0, 5, 1f));
        features(ok(parser, "1 281474976710655:0.123456789"), f(0, (1L << 48) - 1, 0.123456789f));
    }

    @Test
    void rejectsWithEveryReason() {
        rejected(parser, RejectReason.UNPARSABLE, "x 1:1");
        rejected(parser, RejectReason.UNPARSABLE, "1 1-1");
        rejected(parser, RejectReason.UNPARSABLE, "1 a:1");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:abc");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:1:1");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:0x10");
        rejected(parser, RejectReason.UNPARSABLE, "1 1:1f");
        rejected(parser, RejectReason.NON_FINITE_VALUE, "1 1:nan");
        rejected(parser, RejectReason.NON_FINITE_VALUE, "1 1:-Infinity");
        rejected(parser, RejectReason.NON_FINITE_VALUE, "1 1:1e39");
        rejected(parser, RejectReason.BAD_LABEL, "2 1:1");
        rejected(parser, RejectReason.BAD_LABEL, "0.5 1:1");
        rejected(parser, RejectReason.BAD_LABEL, "inf 1:1");
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 -1:1");
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 281474976710656:1");
        rejected(parser, RejectReason.FEATURE_OUT_OF_RANGE, "1 99999999999999999999999:1");
        rejected(parser, RejectReason.EMPTY, "");
        rejected(parser, RejectReason.EMPTY, "  \t ");
        rejected(parser, RejectReason.EMPTY, "# only a comment");
        rejected(parser, RejectReason.EMPTY, "1");
    }

    @Test
    void limitsTheNumberOfFeatures() {
        LineParser three = LineFormat.LIBSVM.parser(ParserAssertions.options("s").withMaxFeatures(3));
        assertEquals(3, ok(three, "1 1:1 2:1 3:1").getFeatures().size());
        rejected(three, RejectReason.TOO_MANY_FEATURES, "1 1:1 2:1 3:1 4:1");
        rejected(parser, RejectReason.TOO_MANY_FEATURES, "1" + " 1:1".repeat(1001));
    }
}
