package io.streamtrain.ingest.format;

import io.streamtrain.ingest.mapping.FeatureMapping;
import java.util.Arrays;
import java.util.Locale;

/** The text formats {@code streamtrain ingest} reads. */
public enum LineFormat {
    /** {@code label idx:val ...}: every feature is in field 0 with id {@code idx}. */
    LIBSVM("libsvm"),
    /** {@code label field:idx:val ...}. */
    LIBFFM("libffm"),
    /** Criteo display-ads TSV: label, I1..I13, C1..C26 (see {@link CriteoParser}). */
    CRITEO("criteo"),
    /** Comma-separated values through a feature mapping ({@code --mapping}; see {@link CsvParser}). */
    CSV("csv"),
    /** One JSON object per line through a feature mapping ({@code --mapping}; see {@link JsonLinesParser}). */
    JSONL("jsonl"),
    /** Avazu CTR CSV (header {@code id,click,hour,C1,...,C21}) through the built-in {@code avazu} mapping. */
    AVAZU("avazu");

    private final String cliName;

    LineFormat(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** Whether the format reads through a feature mapping (which {@link #parser(ParseOptions, FeatureMapping)} takes). */
    public boolean isMapped() {
        return this == CSV || this == JSONL || this == AVAZU;
    }

    /** The parser; avazu with the built-in mapping; csv and jsonl need {@link #parser(ParseOptions, FeatureMapping)}. */
    public LineParser parser(ParseOptions options) {
        return switch (this) {
            case LIBSVM -> new LibsvmParser(options);
            case LIBFFM -> new LibffmParser(options);
            case CRITEO -> new CriteoParser(options);
            case AVAZU -> new CsvParser(options, FeatureMapping.builtIn("avazu"), AVAZU);
            case CSV, JSONL -> throw new IllegalArgumentException("format " + cliName + " needs a feature mapping (--mapping FILE)");
        };
    }

    /** The parser of a mapped format with this mapping (for avazu: instead of the built-in one). */
    public LineParser parser(ParseOptions options, FeatureMapping mapping) {
        return switch (this) {
            case CSV, AVAZU -> new CsvParser(options, mapping, this);
            case JSONL -> new JsonLinesParser(options, mapping);
            default -> throw new IllegalArgumentException("format " + cliName + " has a fixed mapping; a feature mapping"
                    + " applies to csv, jsonl and avazu");
        };
    }

    /** By CLI name, case-insensitively. */
    public static LineFormat fromName(String name) {
        for (LineFormat f : values()) {
            if (f.cliName.equalsIgnoreCase(name.trim())) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + name + "'; expected one of "
                + Arrays.stream(values()).map(LineFormat::cliName).toList());
    }

    @Override
    public String toString() {
        return cliName.toLowerCase(Locale.ROOT);
    }
}
