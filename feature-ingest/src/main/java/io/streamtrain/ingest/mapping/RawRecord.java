package io.streamtrain.ingest.mapping;

/**
 * Named raw values of one input (a CSV row, a JSON object, an impression): what a
 * {@link FeatureMapping} reads. A value is a String, a Number, a Boolean, a List of those (for
 * multi-valued columns), or null when the column is missing.
 */
@FunctionalInterface
public interface RawRecord {
    Object get(String column);
}
