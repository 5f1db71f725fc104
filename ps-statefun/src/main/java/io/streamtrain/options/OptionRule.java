package io.streamtrain.options;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.util.TimeUtils;

/**
 * What an option accepts beyond its type ({@code batch-size} is an integer, and at least 1). A
 * {@link ConfigOption} cannot carry this, so each options class lists its rules beside its options;
 * the settings check applies them before a job starts and the configuration reference prints them.
 */
public final class OptionRule<T> {
    private final ConfigOption<T> option;
    private final Predicate<T> accepts;
    private final String allowed;

    private OptionRule(ConfigOption<T> option, Predicate<T> accepts, String allowed) {
        this.option = option;
        this.accepts = accepts;
        this.allowed = allowed;
    }

    public static <T extends Comparable<T>> OptionRule<T> atLeast(ConfigOption<T> option, T min) {
        return new OptionRule<>(option, v -> v.compareTo(min) >= 0, ">= " + show(min));
    }

    public static <T extends Comparable<T>> OptionRule<T> above(ConfigOption<T> option, T min) {
        return new OptionRule<>(option, v -> v.compareTo(min) > 0, "> " + show(min));
    }

    /** In {@code [min, max)}. */
    public static <T extends Comparable<T>> OptionRule<T> atLeastBelow(ConfigOption<T> option, T min, T max) {
        return new OptionRule<>(option, v -> v.compareTo(min) >= 0 && v.compareTo(max) < 0,
                "in [" + show(min) + ", " + show(max) + ")");
    }

    /** In {@code (min, max]}. */
    public static <T extends Comparable<T>> OptionRule<T> aboveAtMost(ConfigOption<T> option, T min, T max) {
        return new OptionRule<>(option, v -> v.compareTo(min) > 0 && v.compareTo(max) <= 0,
                "in (" + show(min) + ", " + show(max) + "]");
    }

    public ConfigOption<T> option() {
        return option;
    }

    /** The accepted range, e.g. {@code >= 1} or {@code in (0, 1]}. */
    public String allowed() {
        return allowed;
    }

    /** What is wrong with the option's value in {@code conf}, if it is set and outside the rule. */
    public Optional<String> problem(ReadableConfig conf) {
        return conf.getOptional(option)
                .filter(v -> !accepts.test(v))
                .map(v -> "must be " + allowed);
    }

    private static String show(Object value) {
        return value instanceof Duration d ? TimeUtils.formatWithHighestUnit(d) : String.valueOf(value);
    }
}
