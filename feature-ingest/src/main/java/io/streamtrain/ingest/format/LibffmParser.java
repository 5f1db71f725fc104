package io.streamtrain.ingest.format;

/**
 * libffm: {@code label field:idx:val ... [# comment]}, separated by spaces or tabs. Field
 * 0..65533 (65534 and 65535 are reserved: dense chunks and bias), id 0..2^48-1. Labels 0/1; -1/+1 are read as 0/1. A blank line, or
 * a label without features, is {@code empty}.
 */
public final class LibffmParser implements LineParser {
    private final ParseOptions options;

    public LibffmParser(ParseOptions options) {
        this.options = options;
    }

    @Override
    public LineFormat format() {
        return LineFormat.LIBFFM;
    }

    @Override
    public ParseResult parse(String line, long lineNumber) {
        return SparseLines.parse(line, lineNumber, options, true);
    }
}
