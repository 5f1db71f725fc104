package io.streamtrain.ingest.format;

import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.time.Instant;
import java.util.List;

/** Builds the parsed {@link Example}: id {@code <source>:<line>}, event time from the options' clock. */
final class Examples {
    private Examples() {}

    static Example of(ParseOptions options, long lineNumber, float label, List<Feature> features) {
        // dense is a shared immutable empty list: encoders only read it.
        return new Example(options.source() + ":" + lineNumber, Instant.ofEpochMilli(options.clock().getAsLong()),
                label, features, List.of(), 1f);
    }
}
