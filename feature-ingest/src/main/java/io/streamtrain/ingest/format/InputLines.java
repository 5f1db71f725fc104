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

    private final InputStream in;
    private byte[] buffer = new byte[BUFFER_BYTES];
    /** The unread bytes are buffer[next, filled). */
    private int next;
    private int filled;
    private boolean ended;
    /** The bytes of the line {@link #next()} returned last: buffer[lineStart, lineStart + lineLength). */
    private int lineStart;
    private int lineLength;

    public InputLines(InputStream in) {
        this.in = in;
    }

    /** The next line without its LF or CRLF; null after the last line. */
    public String next() throws IOException {
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

    /** A copy of the bytes of the line {@link #next()} returned last, without its line end. */
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
