package io.streamtrain.ps;

import java.time.Duration;

/**
 * The rows' time to live ({@link PsOptions#ROW_TTL}): a row not updated for that long counts as
 * gone, whether or not RocksDB's compaction filter has removed it yet (Flink's state TTL returns
 * expired rows until then, and the row cache knows nothing of it).
 */
final class RowExpiry {
    /** Milliseconds, or {@link Long#MAX_VALUE}: rows never expire. */
    private final long ttlMs;

    /** @param ttl the rows' time to live, or null: they never expire */
    RowExpiry(Duration ttl) {
        this.ttlMs = ttl == null ? Long.MAX_VALUE : ttl.toMillis();
    }

    /** Whether a row last updated at {@code updatedAt} is gone at {@code now} (both processing time, ms). */
    boolean expired(long updatedAt, long now) {
        return ttlMs != Long.MAX_VALUE && now - updatedAt >= ttlMs;
    }
}
