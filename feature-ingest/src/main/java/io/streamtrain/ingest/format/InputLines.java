package io.streamtrain.ingest.format;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The lines of a text input, each ending at LF or CRLF (or the end of the input), with the bytes
 * each line was read from. A lone CR is part of its line: the files are written on Unix or
 * Windows, and splitting at a CR as {@link java.io.BufferedReader#readLine} does would shift every
 * later line number away from the one an editor shows. The text is decoded as UTF-8 with
 * replacement, so one bad byte does not abort a long run, while {@link #bytes} keeps the line as
 * it was for a dead letter. Not thread-safe.
 */
public final class InputLines implements Closeable {
    private static final int BUFFER_BYTES = 1 << 16;
    /** The most lines one record may take: a quoted field with more line breaks is taken for a stray quote. */
    public static final int MAX_RECORD_LINES = 100;

    private final InputStream in;
    private byte[] buffer = new byte[BUFFER_BYTES];
    /** The unread bytes are buffer[next, filled). */
    private int next;
    private int filled;
    private boolean ended;
    /** The bytes of the line {@link #next()} returned last: buffer[lineStart, lineStart + lineLength). */
    private int lineStart;
    private int lineLength;
    private int recordLines = 1;

    public InputLines(InputStream in) {
        this.in = in;
    }

    /** The next line without its LF or CRLF; null after the last line. */
    public String next() throws IOException {
        recordLines = 1;
        int searched = next;
        while (true) {
            for (int i = searched; i < filled; i++) {
                if (buffer[i] == '\n') {
                    int end = i > next && buffer[i - 1] == '\r' ? i - 1 : i;
                    return take(end, i + 1);
                }
            }
            if (ended) {
                return next < filled ? take(filled, filled) : null;
            }
            searched = fill();
        }
    }

    /**
     * The next record for {@code parser}: a line, or, while the parser says its record goes on
     * ({@link LineParser#continuesOnNextLine}), that line and the ones after it, with their line
     * ends, up to {@value #MAX_RECORD_LINES} lines; null after the last line. {@link #bytes} covers
     * the whole record and {@link #lines} says how many lines it took. A record still open at its
     * last allowed line or at the end of the input is returned as its first line alone (which the
     * parser then rejects), and reading goes on with the line after it, so one stray quote costs
     * one line.
     */
    public String next(LineParser parser) throws IOException {
        String line = next();
        recordLines = 1;
        if (line == null || !parser.continuesOnNextLine(line)) {
            return line;
        }
        // Read on from the record's start; fill() keeps buffer[next, filled), so offsets are relative to next.
        int firstLength = lineLength;
        int firstAfter = next - lineStart;
        next = lineStart;
        int searched = next + firstAfter;
        for (int count = 2; count <= MAX_RECORD_LINES; count++) {
            int lf = -1;
            while (lf < 0) {
                for (int i = searched; i < filled && lf < 0; i++) {
                    if (buffer[i] == '\n') {
                        lf = i;
                    }
                }
                if (lf < 0) {
                    if (ended) {
                        break;
                    }
                    searched = fill();
                }
            }
            if (lf < 0 && next + firstAfter >= filled) {
                break; // the input ends right after the first line
            }
            int end = lf < 0 ? filled : lf > next && buffer[lf - 1] == '\r' ? lf - 1 : lf;
            String record = new String(buffer, next, end - next, StandardCharsets.UTF_8);
            if (!parser.continuesOnNextLine(record)) {
                recordLines = count;
                return take(end, lf < 0 ? filled : lf + 1);
            }
            if (lf < 0) {
                break;
            }
            searched = lf + 1;
        }
        return take(next + firstLength, next + firstAfter);
    }

    /** How many lines the record {@link #next(LineParser)} returned last took (1 after {@link #next()}). */
    public int lines() {
        return recordLines;
    }

    /** A copy of the bytes of the line (or record) returned last, without its line end. */
    public byte[] bytes() {
        return Arrays.copyOfRange(buffer, lineStart, lineStart + lineLength);
    }

    private String take(int end, int after) {
        lineStart = next;
        lineLength = end - next;
        next = after;
        return new String(buffer, lineStart, lineLength, StandardCharsets.UTF_8);
    }

    /**
     * Moves the unread bytes (all searched already) to the front, growing the buffer when one line
     * fills it, and reads more, noting the end of the input; returns where the search resumes.
     */
    private int fill() throws IOException {
        int unread = filled - next;
        if (next > 0) {
            System.arraycopy(buffer, next, buffer, 0, unread);
        } else if (unread == buffer.length) {
            buffer = Arrays.copyOf(buffer, buffer.length * 2);
        }
        next = 0;
        filled = unread;
        int n = in.read(buffer, filled, buffer.length - filled);
        if (n < 0) {
            ended = true;
        } else {
            filled += n;
        }
        return unread;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
