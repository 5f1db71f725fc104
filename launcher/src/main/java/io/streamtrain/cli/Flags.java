package io.streamtrain.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * The flags a command was given explicitly, each with the option it sets. A flag has no default of
 * its own: one not given is null and sets nothing, so {@code -D}, the Flink configuration file and
 * the option's default stay in force beneath it.
 */
final class Flags {
    private record Flag<T>(String name, ConfigOption<T> option, T value) {
        void applyTo(Configuration conf) {
            conf.set(option, value);
        }
    }

    private final List<Flag<?>> given = new ArrayList<>();

    /** Adds {@code name}'s value for {@code option}, if the flag was given. */
    <T> Flags with(String name, ConfigOption<T> option, T value) {
        if (value != null) {
            given.add(new Flag<>(name, option, value));
        }
        return this;
    }

    /** These flags and {@code more}'s. */
    Flags with(Flags more) {
        given.addAll(more.given);
        return this;
    }

    void applyTo(Configuration conf) {
        given.forEach(f -> f.applyTo(conf));
    }

    /** The flag that set {@code key}, if one did. */
    Optional<String> flagOf(String key) {
        return given.stream().filter(f -> f.option().key().equals(key)).map(Flag::name).findFirst();
    }
}
