package io.streamtrain.contract;

import java.nio.ByteBuffer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The version a model-updates record carries, in a record header (8 bytes, big-endian): how many
 * pushes its row had taken when the PS published it ({@code EmbeddingRow.version}). A recovery
 * replays the feedback log and recomputes every row at every version exactly, so one (row,
 * version) has one value and a follower keeps the highest version of each row (docs/ARCHITECTURE.md,
 * "Serving"). A record without the header comes from a job whose updates wait for their checkpoint
 * (transactional, read in commit order): the follower applies it whatever it holds.
 */
public final class RowVersion {
    public static final String HEADER = "streamtrain.row-version";
    /** No version: an unversioned record, or a row whose version a store does not know (a bundle's own rows). */
    public static final long NONE = -1;

    private RowVersion() {}

    public static Header header(long version) {
        if (version < 0) {
            throw new IllegalArgumentException("a row version is 0 or more, got " + version);
        }
        return new RecordHeader(HEADER, ByteBuffer.allocate(Long.BYTES).putLong(version).array());
    }

    /** The record's version, or {@link #NONE} when it has none; a malformed header is an {@link IllegalArgumentException}. */
    public static long of(Headers headers) {
        Header h = headers.lastHeader(HEADER);
        if (h == null) {
            return NONE;
        }
        byte[] v = h.value();
        if (v == null || v.length != Long.BYTES) {
            throw new IllegalArgumentException("header " + HEADER + " is 8 bytes, got " + (v == null ? "none" : v.length));
        }
        return ByteBuffer.wrap(v).getLong();
    }

    /** Whether an update at {@code version} replaces a row held at {@code held}: either is unversioned, or it is newer. */
    public static boolean supersedes(long version, long held) {
        return version == NONE || held == NONE || version > held;
    }
}
