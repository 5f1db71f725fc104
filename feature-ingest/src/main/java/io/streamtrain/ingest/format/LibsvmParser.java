package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import java.util.ArrayList;
import java.util.List;

/**
 * libsvm / svmlight: {@code label idx:val idx:val ... [# comment]}, separated by spaces or tabs.
 * Every feature goes to field 0 with id {@code idx}. Labels 0/1; -1/+1 are read as 0/1. svmlight's
 * {@code qid:N} tokens are skipped. A blank line, or a label without features, is {@code empty}.
 */
public final class LibsvmParser implements LineParser {
    private final ParseOptions options;

    public LibsvmParser(ParseOptions options) {
        this.options = options;
    }

    @Override
    public LineFormat format() {
        return LineFormat.LIBSVM;
    }

    @Override
    public ParseResult parse(String line, long lineNumber) {
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
        List<Feature> features = new ArrayList<>();
        int token = 1;
        for (i = Scan.skipSpace(line, t, end); i < end; i = Scan.skipSpace(line, t, end), token++) {
            t = Scan.tokenEnd(line, i, end);
            int colon = Scan.indexOf(line, ':', i, t);
            if (colon < 0 || Scan.indexOf(line, ':', colon + 1, t) >= 0) {
                return reject(RejectReason.UNPARSABLE,
                        "token " + token + " '" + Scan.excerpt(line, i, t) + "' is not idx:value");
            }
            if (colon - i == 3 && line.startsWith("qid", i)) {
                continue;
            }
            if (features.size() == options.maxFeatures()) {
                return reject(RejectReason.TOO_MANY_FEATURES, "more than " + options.maxFeatures() + " features");
            }
            long idx = Scan.index(line, i, colon, FeatureKey.MAX_ID);
            if (idx == Scan.NOT_A_NUMBER) {
                return reject(RejectReason.UNPARSABLE,
                        "token " + token + " '" + Scan.excerpt(line, i, t) + "': index is not an integer");
            }
            if (idx == Scan.OUT_OF_RANGE || !FeatureKey.isValidInput(0, idx)) {
                return reject(RejectReason.FEATURE_OUT_OF_RANGE,
                        "token " + token + " '" + Scan.excerpt(line, i, t) + "': index outside 0.." + FeatureKey.MAX_ID);
            }
            float value = Scan.value(line, colon + 1, t);
            if (Float.isNaN(value)) {
                return reject(RejectReason.UNPARSABLE,
                        "token " + token + " '" + Scan.excerpt(line, i, t) + "': value is not a number");
            }
            if (Float.isInfinite(value)) {
                return reject(RejectReason.NON_FINITE_VALUE,
                        "token " + token + " '" + Scan.excerpt(line, i, t) + "': value is not finite");
            }
            features.add(new Feature(0, idx, value));
        }
        if (features.isEmpty()) {
            return reject(RejectReason.EMPTY, "no features");
        }
        return ParseResult.ok(Examples.of(options, lineNumber, label, features));
    }
}
