package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared grammar of libsvm and libffm lines: {@code label token token ... [# comment]}, where
 * a token is {@code idx:val} (libsvm, field 0; svmlight's {@code qid:N} skipped) or
 * {@code field:idx:val} (libffm). Labels 0/1; -1/+1 are read as 0/1. A blank line, or a label
 * without features, is {@code empty}.
 */
final class SparseLines {
    private SparseLines() {}

    static ParseResult parse(String line, long lineNumber, ParseOptions options, boolean withField) {
        int end = Scan.contentEnd(line, true);
        int i = Scan.skipSpace(line, 0, end);
        if (i == end) {
            return reject(RejectReason.EMPTY, "blank line");
        }
        int t = Scan.tokenEnd(line, i, end);
        float label = Scan.label(line, i, t);
        if (Float.isNaN(label)) {
            return reject(RejectReason.UNPARSABLE, "label '" + Scan.excerpt(line, i, t) + "' is not a number");
        }
        if (label == Scan.BAD_LABEL) {
            return reject(RejectReason.BAD_LABEL, "label '" + Scan.excerpt(line, i, t) + "' is not 0/1 or -1/+1");
        }
        String shape = withField ? "field:idx:value" : "idx:value";
        List<Feature> features = new ArrayList<>();
        int token = 1;
        for (i = Scan.skipSpace(line, t, end); i < end; i = Scan.skipSpace(line, t, end), token++) {
            t = Scan.tokenEnd(line, i, end);
            // c1 ends the field (libffm only), c2 the index.
            int c1 = withField ? Scan.indexOf(line, ':', i, t) : i - 1;
            int c2 = withField && c1 < 0 ? -1 : Scan.indexOf(line, ':', c1 + 1, t);
            if (c2 < 0 || Scan.indexOf(line, ':', c2 + 1, t) >= 0) {
                return reject(RejectReason.UNPARSABLE, "token " + token + " '" + Scan.excerpt(line, i, t) + "' is not " + shape);
            }
            if (!withField && c2 - i == 3 && line.startsWith("qid", i)) {
                continue;
            }
            if (features.size() == options.maxFeatures()) {
                return reject(RejectReason.TOO_MANY_FEATURES, "more than " + options.maxFeatures() + " features");
            }
            long field = withField ? Scan.index(line, i, c1, Integer.MAX_VALUE) : 0;
            long idx = Scan.index(line, c1 + 1, c2, FeatureKey.MAX_ID);
            if (field == Scan.NOT_A_NUMBER || idx == Scan.NOT_A_NUMBER) {
                return reject(RejectReason.UNPARSABLE,
                        "token " + token + " '" + Scan.excerpt(line, i, t) + "': field or index is not an integer");
            }
            if (field == Scan.OUT_OF_RANGE || idx == Scan.OUT_OF_RANGE || !FeatureKey.isValidInput((int) field, idx)) {
                return reject(RejectReason.FEATURE_OUT_OF_RANGE, "token " + token + " '" + Scan.excerpt(line, i, t)
                        + "': field outside 0.." + (FeatureKey.DENSE_FIELD - 1) + " or index outside 0.." + FeatureKey.MAX_ID);
            }
            float value = Scan.value(line, c2 + 1, t);
            if (Float.isNaN(value)) {
                return reject(RejectReason.UNPARSABLE, "token " + token + " '" + Scan.excerpt(line, i, t) + "': value is not a number");
            }
            if (Float.isInfinite(value)) {
                return reject(RejectReason.NON_FINITE_VALUE, "token " + token + " '" + Scan.excerpt(line, i, t) + "': value is not finite");
            }
            features.add(new Feature((int) field, idx, value));
        }
        if (features.isEmpty()) {
            return reject(RejectReason.EMPTY, "no features");
        }
        return ParseResult.ok(Examples.of(options, lineNumber, label, features));
    }
}
