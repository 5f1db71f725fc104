package io.streamtrain.ingest.format;

import static io.streamtrain.ingest.format.ParseResult.reject;

import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.MappingException;
import io.streamtrain.ingest.mapping.RawRecord;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import java.time.Instant;
import java.util.List;

/** A raw record (a CSV row, a JSON object) through a {@link FeatureMapping} into an {@link Example}, with the parsers' limits. */
final class MappedRecords {
    private MappedRecords() {}

    /** Fails fast for a mapping that cannot label file records. */
    static FeatureMapping requireLabel(FeatureMapping mapping) {
        if (mapping.labelColumn() == null) {
            throw new IllegalArgumentException(mapping + " has no \"label\" column; files need one");
        }
        return mapping;
    }

    /** The parse options of one topic record: its Kafka timestamp is the event time unless the mapping has a time column. */
    static ParseOptions recordOptions(String source, int maxFeatures, long timestamp) {
        return new ParseOptions(source, maxFeatures, ParseOptions.DEFAULT_HASH_BITS, () -> timestamp);
    }

    /** Id: the mapping's id column, else {@code <source>:<line>}; event time: its time column, else the clock. */
    static ParseResult parse(FeatureMapping mapping, ParseOptions options, RawRecord raw, long lineNumber) {
        try {
            float label = mapping.label(raw);
            List<Feature> features = mapping.features(raw);
            if (features.size() > options.maxFeatures()) {
                return reject(RejectReason.TOO_MANY_FEATURES, features.size() + " features, more than " + options.maxFeatures());
            }
            if (features.isEmpty()) {
                return reject(RejectReason.EMPTY, "no features (every mapped column is empty)");
            }
            String id = mapping.id(raw);
            long time = mapping.time(raw, Long.MIN_VALUE);
            return ParseResult.ok(new Example(id != null ? id : options.source() + ":" + lineNumber,
                    Instant.ofEpochMilli(time != Long.MIN_VALUE ? time : options.clock().getAsLong()), label, features, List.of(), 1f));
        } catch (MappingException e) {
            return reject(e.reason(), e.getMessage());
        }
    }
}
