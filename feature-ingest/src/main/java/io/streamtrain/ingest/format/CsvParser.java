package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import io.streamtrain.ingest.mapping.FeatureMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Delimited text (CSV, Avazu) through a {@link FeatureMapping}: RFC 4180 fields, split by Jackson's
 * CSV parser (a field in double quotes may hold the delimiter, and {@code ""} is a quote; text after
 * a closing quote is an error), every row exactly as many fields as there are columns. The column names are the mapping's {@code columns}, or the file's header line
 * ({@link #afterHeader}); an empty field is a missing value.
 */
public final class CsvParser implements LineParser {
    /** Jackson's CSV tokenizer; with no column names in the schema it reads each row as an array of strings. */
    private static final CsvFactory FIELDS = CsvFactory.builder()
            .disable(com.fasterxml.jackson.dataformat.csv.CsvParser.Feature.ALLOW_TRAILING_COMMA) // "a,b," has three fields
            .build();
    /** How Jackson's message for a quoted field that the input ends inside begins. */
    private static final String UNCLOSED_QUOTE = "Missing closing quote";

    private final ParseOptions options;
    private final FeatureMapping mapping;
    private final LineFormat format;
    private final CsvSchema schema;
    private final List<String> columns; // null until the header is read
    private final Map<String, Integer> index = new HashMap<>();

    public CsvParser(ParseOptions options, FeatureMapping mapping, LineFormat format) {
        this(options, MappedRecords.requireLabel(mapping), format, mapping.csv().columns());
    }

    private CsvParser(ParseOptions options, FeatureMapping mapping, LineFormat format, List<String> columns) {
        this.options = options;
        this.mapping = mapping;
        this.format = format;
        this.schema = CsvSchema.emptySchema()
                .withColumnSeparator(mapping.csv().delimiter().charAt(0))
                .withQuoteChar('"')
                .withoutEscapeChar();
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
        List<String> names;
        try {
            names = split(strip(header));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("header line: " + e.getMessage(), e);
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
        List<String> values;
        try {
            values = split(row);
        } catch (IllegalArgumentException e) {
            return reject(RejectReason.UNPARSABLE, e.getMessage());
        }
        if (values.size() != columns.size()) {
            return reject(RejectReason.UNPARSABLE, "expected " + columns.size() + " fields, found " + values.size());
        }
        return MappedRecords.parse(mapping, options, column -> {
            Integer i = index.get(column);
            return i == null ? null : values.get(i);
        }, lineNumber);
    }

    /**
     * True while {@code record} ends inside a quoted field: RFC 4180 lets one hold line breaks, so
     * the record goes on with the next line.
     */
    @Override
    public boolean continuesOnNextLine(String record) {
        if (record.indexOf('"') < 0) {
            return false;
        }
        try {
            split(strip(record));
            return false;
        } catch (UnclosedQuote e) {
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The input ends inside a quoted field. */
    private static final class UnclosedQuote extends IllegalArgumentException {
        UnclosedQuote(Throwable cause) {
            super("unclosed quote", cause);
        }
    }

    private static String strip(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    /** The fields of one row; throws IllegalArgumentException, saying why, for a row that is not RFC 4180. */
    private List<String> split(String row) {
        try (com.fasterxml.jackson.dataformat.csv.CsvParser fields = FIELDS.createParser(row)) {
            fields.setSchema(schema);
            List<String> values = new ArrayList<>(columns == null ? 16 : columns.size());
            fields.nextToken(); // the row's START_ARRAY
            while (fields.nextToken() == JsonToken.VALUE_STRING) {
                values.add(fields.getText());
            }
            if (fields.nextToken() != null) {
                throw new IllegalArgumentException("a line break outside quotes");
            }
            return values;
        } catch (JsonProcessingException e) {
            String why = e.getOriginalMessage();
            throw why.startsWith(UNCLOSED_QUOTE) ? new UnclosedQuote(e) : new IllegalArgumentException(why, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a String does not fail
        }
    }
}
