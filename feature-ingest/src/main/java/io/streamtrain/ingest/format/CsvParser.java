package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import io.streamtrain.ingest.mapping.FeatureMapping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Delimited text (CSV, Avazu) through a {@link FeatureMapping}: RFC 4180 fields (a field in double
 * quotes may hold the delimiter, and {@code ""} is a quote), every row exactly as many fields as
 * there are columns. The column names are the mapping's {@code columns}, or the file's header line
 * ({@link #afterHeader}); an empty field is a missing value.
 */
public final class CsvParser implements LineParser {
    private final ParseOptions options;
    private final FeatureMapping mapping;
    private final LineFormat format;
    private final char delimiter;
    private final List<String> columns; // null until the header is read
    private final Map<String, Integer> index = new HashMap<>();

    public CsvParser(ParseOptions options, FeatureMapping mapping, LineFormat format) {
        this(options, MappedRecords.requireLabel(mapping), format, mapping.csv().columns());
    }

    private CsvParser(ParseOptions options, FeatureMapping mapping, LineFormat format, List<String> columns) {
        this.options = options;
        this.mapping = mapping;
        this.format = format;
        this.delimiter = mapping.csv().delimiter().charAt(0);
        this.columns = columns;
        if (columns != null) {
            for (int i = 0; i < columns.size(); i++) {
                if (index.put(columns.get(i), i) != null) {
                    throw new IllegalArgumentException("column " + columns.get(i) + " appears twice");
                }
            }
            for (String c : mapping.columns()) {
                if (!index.containsKey(c)) {
                    throw new IllegalArgumentException(mapping + " reads column " + c + ", which is not among " + columns);
                }
            }
        }
    }

    @Override
    public LineFormat format() {
        return format;
    }

    @Override
    public boolean expectsHeader() {
        return mapping.csv().header();
    }

    /** The parser for the rows below this header line; with declared columns the header must name them. */
    @Override
    public CsvParser afterHeader(String header) {
        List<String> names = split(strip(header));
        if (names == null) {
            throw new IllegalArgumentException("header line: unclosed quote");
        }
        if (columns != null && !columns.equals(names)) {
            throw new IllegalArgumentException("header " + names + " differs from the mapping's columns " + columns);
        }
        return new CsvParser(options, mapping, format, names);
    }

    @Override
    public ParseResult parse(String line, long lineNumber) {
        if (columns == null) {
            throw new IllegalStateException("read the header line first (afterHeader)");
        }
        String row = strip(line);
        if (row.isBlank()) {
            return reject(RejectReason.EMPTY, "blank line");
        }
        List<String> values = split(row);
        if (values == null) {
            return reject(RejectReason.UNPARSABLE, "unclosed quote");
        }
        if (values.size() != columns.size()) {
            return reject(RejectReason.UNPARSABLE, "expected " + columns.size() + " fields, found " + values.size());
        }
        return MappedRecords.parse(mapping, options, column -> {
            Integer i = index.get(column);
            return i == null ? null : values.get(i);
        }, lineNumber);
    }

    private static String strip(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    /** The fields of one row, or null for an unclosed quote. */
    private List<String> split(String row) {
        List<String> out = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < row.length(); i++) {
            char c = row.charAt(i);
            if (quoted) {
                if (c != '"') {
                    field.append(c);
                } else if (i + 1 < row.length() && row.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else {
                    quoted = false;
                }
            } else if (c == '"' && field.isEmpty()) {
                quoted = true;
            } else if (c == delimiter) {
                out.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        if (quoted) {
            return null;
        }
        out.add(field.toString());
        return out;
    }
}
