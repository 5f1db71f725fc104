package io.streamtrain.ingest.format;

import java.util.Arrays;
import java.util.Locale;

/** The text formats {@code streamtrain ingest} reads. */
public enum LineFormat {
    /** {@code label idx:val ...}: every feature is in field 0 with id {@code idx}. */
    LIBSVM("libsvm"),
    /** {@code label field:idx:val ...}. */
    LIBFFM("libffm"),
    /** Criteo display-ads TSV: label, I1..I13, C1..C26 (see {@link CriteoParser}). */
    CRITEO("criteo");

    private final String cliName;

    LineFormat(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    public LineParser parser(ParseOptions options) {
        return switch (this) {
            case LIBSVM -> new LibsvmParser(options);
            case LIBFFM -> new LibffmParser(options);
            case CRITEO -> new CriteoParser(options);
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
