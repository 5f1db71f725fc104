package io.streamtrain.ingest.format;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Settings shared by the line parsers.
 *
 * @param source names the input in example ids ({@code <source>:<line number>}), usually the file name
 * @param maxFeatures lines with more features are rejected ({@code too-many-features})
 * @param hashBits Criteo categoricals are hashed to {@code [0, 2^hashBits)}, 1..48
 * @param clock supplies {@code event_time} (epoch millis) for each parsed line: files have no
 *     event time of their own, so it is the ingest wall-clock by default
 */
public record ParseOptions(String source, int maxFeatures, int hashBits, LongSupplier clock) {
    public static final int DEFAULT_MAX_FEATURES = 1000;
    public static final int DEFAULT_HASH_BITS = 24;

    public ParseOptions {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(clock, "clock");
        if (maxFeatures < 1) {
            throw new IllegalArgumentException("maxFeatures must be >= 1, was " + maxFeatures);
        }
        if (hashBits < 1 || hashBits > 48) {
            throw new IllegalArgumentException("hashBits must be in 1..48 (feature ids have 48 bits), was " + hashBits);
        }
    }

    public static ParseOptions defaults(String source) {
        return new ParseOptions(source, DEFAULT_MAX_FEATURES, DEFAULT_HASH_BITS, System::currentTimeMillis);
    }

    public ParseOptions withMaxFeatures(int n) {
        return new ParseOptions(source, n, hashBits, clock);
    }

    public ParseOptions withHashBits(int bits) {
        return new ParseOptions(source, maxFeatures, bits, clock);
    }

    public ParseOptions withClock(LongSupplier c) {
        return new ParseOptions(source, maxFeatures, hashBits, c);
    }
}
