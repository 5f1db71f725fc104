package io.streamtrain.ingest.format;

/**
 * Parses one text line into an example. Implementations are stateless and thread-safe, so one
 * instance can serve an ingest run or a scorer's request threads.
 */
public sealed interface LineParser permits LibsvmParser, LibffmParser, CriteoParser {

    /**
     * @param line one line without its terminator (a trailing {@code \r} is ignored)
     * @param lineNumber 1-based; becomes part of the example id
     */
    ParseResult parse(String line, long lineNumber);

    LineFormat format();
}
