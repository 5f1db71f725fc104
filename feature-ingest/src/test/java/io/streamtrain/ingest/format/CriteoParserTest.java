package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParserAssertions.ok;
import static io.streamtrain.ingest.format.ParserAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class CriteoParserTest {
    /** The first line of Criteo's day_0 / train.txt: I12 and C20 are missing. */
    static final String LINE = String.join("\t", "0",
            "1", "1", "5", "0", "1382", "4", "15", "2", "181", "1", "2", "", "2",
            "68fd1e64", "80e26c9b", "fb936136", "7b4723c4", "25c83c98", "7e0ccccf", "de7995b8", "1f89b562",
            "a73ee510", "a8cd5504", "b2cb9c98", "37c9c164", "2824a5f6", "1adce6ef", "8ba8b39a", "891b62e7",
            "e5ba7672", "f54016b9", "21ddcdc9", "b1252a9d", "07b5194c", "", "3a171ecb", "c5c50484",
            "e8b83407", "9727dd16");

    private final LineParser parser = LineFormat.CRITEO.parser(ParserAssertions.options("day_0"));

    @Test
    void mapsEveryColumnByTheDocumentedFormulas() {
        Example e = ok(parser, LINE);
        assertEquals("day_0:7", e.getId());
        assertEquals(0f, e.getLabel());
        String[] cols = LINE.split("\t", -1);
        List<Feature> expected = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            if (!cols[1 + i].isEmpty()) {
                expected.add(new Feature(i, expectedBucket(Long.parseLong(cols[1 + i])), 1f));
            }
        }
        for (int j = 0; j < 26; j++) {
            if (!cols[14 + j].isEmpty()) {
                expected.add(new Feature(13 + j, ParserAssertions.expectedHash(13 + j, cols[14 + j]) & ((1L << 24) - 1), 1f));
            }
        }
        assertEquals(37, expected.size());
        assertEquals(expected, e.getFeatures());
        // Spot values, worked by hand: 1382+1 = 1383 lies in [1024, 2048) -> floor(log2) = 10 -> id 11.
        assertEquals(new Feature(4, 11L, 1f), e.getFeatures().get(4));
        assertEquals(new Feature(3, 1L, 1f), e.getFeatures().get(3)); // v = 0 -> 1
    }

    @Test
    void hashIsPinned() {
        // Golden values: if these change, every trained model and serving store silently breaks.
        assertEquals(ParserAssertions.expectedHash(13, "68fd1e64"), FeatureHashing.hash64(13, "68fd1e64"));
        assertEquals(0x5a3ae1516617599dL, FeatureHashing.hash64(13, "68fd1e64")); // also checked in Python
        assertEquals(0x17599dL, FeatureHashing.id(13, "68fd1e64", 0, 8, 24));
        // Non-ASCII and supplementary characters hash their UTF-8 bytes.
        for (String s : List.of("é", "日本", "😀x", "a\uD800b", "")) {
            assertEquals(ParserAssertions.expectedHash(20, s), FeatureHashing.hash64(20, s), s);
        }
        assertEquals(ParserAssertions.expectedHash(38, "c5c50484") & ((1L << 48) - 1), FeatureHashing.id(38, "c5c50484", 0, 8, 48));
    }

    @Test
    void fnvReferenceVector() {
        // The independent FNV-1a below against the published test vector for "a".
        long h = 0xcbf29ce484222325L;
        h = (h ^ 'a') * 0x100000001b3L;
        assertEquals(0xaf63dc4c8601ec8cL, h);
    }

    @Test
    void bucketsIntegers() {
        assertEquals(0, FeatureHashing.logBucket(-1));
        assertEquals(0, FeatureHashing.logBucket(Long.MIN_VALUE));
        assertEquals(1, FeatureHashing.logBucket(0));
        assertEquals(2, FeatureHashing.logBucket(1));
        assertEquals(2, FeatureHashing.logBucket(2));
        assertEquals(3, FeatureHashing.logBucket(3));
        assertEquals(64, FeatureHashing.logBucket(Long.MAX_VALUE));
        for (long v = 0; v < 5000; v++) {
            assertEquals(expectedBucket(v), FeatureHashing.logBucket(v), "v=" + v);
        }
        Example e = ok(parser, withColumn(LINE, 1, "-3"));
        assertEquals(new Feature(0, 0L, 1f), e.getFeatures().get(0));
        e = ok(parser, withColumn(LINE, 1, "99999999999999999999"));
        assertEquals(new Feature(0, 64L, 1f), e.getFeatures().get(0));
    }

    @Test
    void hashBitsMaskTheIds() {
        LineParser narrow = LineFormat.CRITEO.parser(ParserAssertions.options("d").withHashBits(4));
        for (Feature f : ok(narrow, LINE).getFeatures()) {
            if (f.getField() >= 13) {
                assertEquals(ParserAssertions.expectedHash(f.getField(), LINE.split("\t", -1)[f.getField() + 1]) & 15, f.getId());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> ParseOptions.defaults("d").withHashBits(49));
    }

    @Test
    void rejectsWithItsReasons() {
        rejected(parser, RejectReason.UNPARSABLE, LINE.substring(0, LINE.lastIndexOf('\t'))); // 39 columns
        rejected(parser, RejectReason.UNPARSABLE, LINE + "\textra");
        rejected(parser, RejectReason.UNPARSABLE, withColumn(LINE, 0, "x"));
        rejected(parser, RejectReason.UNPARSABLE, withColumn(LINE, 0, ""));
        rejected(parser, RejectReason.UNPARSABLE, withColumn(LINE, 3, "abc"));
        rejected(parser, RejectReason.UNPARSABLE, withColumn(LINE, 3, "1.5"));
        rejected(parser, RejectReason.BAD_LABEL, withColumn(LINE, 0, "2"));
        rejected(parser, RejectReason.EMPTY, "");
        rejected(parser, RejectReason.EMPTY, "1" + "\t".repeat(39));
        LineParser ten = LineFormat.CRITEO.parser(ParserAssertions.options("d").withMaxFeatures(10));
        rejected(ten, RejectReason.TOO_MANY_FEATURES, LINE);
        assertEquals(1f, ok(parser, withColumn(LINE, 0, "1") + "\r").getLabel());
    }

    private static String withColumn(String line, int column, String value) {
        String[] cols = line.split("\t", -1);
        cols[column] = value;
        return String.join("\t", cols);
    }

    /** floor(log2(v+1)) + 1 by repeated doubling, without the bit tricks of the implementation. */
    private static long expectedBucket(long v) {
        if (v < 0) {
            return 0;
        }
        long k = 0;
        long pow = 1;
        while (pow * 2 <= v + 1) {
            pow *= 2;
            k++;
        }
        return k + 1;
    }

    @Test
    void formatNames() {
        assertEquals(LineFormat.CRITEO, LineFormat.fromName("Criteo"));
        assertEquals(List.of("libsvm", "libffm", "criteo", "csv", "jsonl", "avazu"),
                Collections.unmodifiableList(java.util.Arrays.stream(LineFormat.values()).map(LineFormat::cliName).toList()));
        assertThrows(IllegalArgumentException.class, () -> LineFormat.fromName("tsv"));
    }
}
