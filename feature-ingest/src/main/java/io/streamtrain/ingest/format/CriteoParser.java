package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import io.streamtrain.schema.Feature;
import java.util.ArrayList;
import java.util.List;

/**
 * Criteo display-advertising TSV: exactly 40 tab-separated columns, {@code label I1..I13 C1..C26}.
 * An empty column is a missing value and yields no feature.
 * <ul>
 *   <li>Integer column Ii (i = 0..12) → field i, id {@link FeatureHashing#logBucket}(v)
 *       (0 for v &lt; 0, else floor(log2(v+1))+1), value 1. Larger-than-long values saturate.
 *   <li>Categorical column Cj (j = 0..25) → field 13+j, id
 *       {@link FeatureHashing#id FeatureHashing.id}(13+j, text, hashBits), value 1.
 * </ul>
 * Labels 0/1 (-1/+1 read as 0/1). The label-less test files (39 columns) are not accepted.
 */
public final class CriteoParser implements LineParser {
    public static final int INTEGER_COLUMNS = 13;
    public static final int CATEGORICAL_COLUMNS = 26;
    public static final int COLUMNS = 1 + INTEGER_COLUMNS + CATEGORICAL_COLUMNS;
    /** Field of the first categorical column. */
    public static final int FIRST_CATEGORICAL_FIELD = INTEGER_COLUMNS;

    private final ParseOptions options;

    public CriteoParser(ParseOptions options) {
        this.options = options;
    }

    @Override
    public LineFormat format() {
        return LineFormat.CRITEO;
    }

    @Override
    public ParseResult parse(String line, long lineNumber) {
        int end = Scan.contentEnd(line, false);
        if (line.isBlank()) {
            return reject(RejectReason.EMPTY, "blank line");
        }
        int columns = 1;
        for (int i = 0; i < end; i++) {
            if (line.charAt(i) == '\t') {
                columns++;
            }
        }
        if (columns != COLUMNS) {
            return reject(RejectReason.UNPARSABLE, "expected " + COLUMNS + " tab-separated columns, found " + columns);
        }
        int from = 0;
        int to = Scan.indexOf(line, '\t', from, end);
        float label = Scan.label(line, from, to);
        if (Float.isNaN(label)) {
            return reject(RejectReason.UNPARSABLE, "label '" + Scan.excerpt(line, from, to) + "' is not a number");
        }
        if (label == Scan.BAD_LABEL) {
            return reject(RejectReason.BAD_LABEL, "label '" + Scan.excerpt(line, from, to) + "' is not 0/1 or -1/+1");
        }
        List<Feature> features = new ArrayList<>(COLUMNS - 1);
        for (int column = 1; column < COLUMNS; column++) {
            from = to + 1;
            to = column == COLUMNS - 1 ? end : Scan.indexOf(line, '\t', from, end);
            if (from == to) {
                continue; // missing value
            }
            if (features.size() == options.maxFeatures()) {
                return reject(RejectReason.TOO_MANY_FEATURES, "more than " + options.maxFeatures() + " features");
            }
            int field = column - 1;
            if (field < INTEGER_COLUMNS) {
                if (!Scan.isInteger(line, from, to)) {
                    return reject(RejectReason.UNPARSABLE,
                            "I" + (field + 1) + " '" + Scan.excerpt(line, from, to) + "' is not an integer");
                }
                features.add(new Feature(field, FeatureHashing.logBucket(Scan.saturatingLong(line, from, to)), 1f));
            } else {
                features.add(new Feature(field, FeatureHashing.id(field, line, from, to, options.hashBits()), 1f));
            }
        }
        if (features.isEmpty()) {
            return reject(RejectReason.EMPTY, "no features (every column is empty)");
        }
        return ParseResult.ok(Examples.of(options, lineNumber, label, features));
    }
}
