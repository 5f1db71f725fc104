package io.streamtrain.ingest.format;

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
        return SparseLines.parse(line, lineNumber, options, false);
    }
}
