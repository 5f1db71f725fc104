package io.streamtrain.ingest.format;

/**
 * Parses one text line into an example. Implementations are stateless and thread-safe, so one
 * instance can serve an ingest run or a scorer's request threads.
 */
public sealed interface LineParser permits LibsvmParser, LibffmParser, CriteoParser, CsvParser, JsonLinesParser {

    /**
     * @param line one line without its terminator (a trailing {@code \r} is ignored), or the lines of
     *     one record joined with their line ends ({@link #continuesOnNextLine})
     * @param lineNumber 1-based; becomes part of the example id
     */
    ParseResult parse(String line, long lineNumber);

    LineFormat format();

    /**
     * Whether {@code record} (a line, or lines joined with their line ends) stops short of a whole
     * record, which then goes on with the next line: a quoted CSV field may hold line breaks.
     */
    default boolean continuesOnNextLine(String record) {
        return false;
    }

    /** Whether the input's first line is a header for {@link #afterHeader}, not a record. */
    default boolean expectsHeader() {
        return false;
    }

    /** The parser for the lines after this header line; throws IllegalArgumentException for a bad header. */
    default LineParser afterHeader(String header) {
        return this;
    }
}
