package io.streamtrain.config;

import io.streamtrain.kafka.KafkaClientProperties;
import io.streamtrain.options.OptionRule;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.commons.text.similarity.LevenshteinDistance;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * The one check of a job's settings before anything starts, for the command line ({@code -D},
 * flags, the Flink configuration file) and SQL tables alike. An unknown {@code streamtrain.*} key,
 * or a value that is not of its option's type or outside its {@link OptionRule}, is an error that
 * names the key, the value and what is allowed. A Flink key gets its value checked the same way;
 * a key neither Flink ({@link FlinkOptionKeys}) nor streamtrain knows, or a deprecated one, gets a
 * warning: plugins read keys of their own (a filesystem's {@code s3.*}, a reporter's
 * {@code metrics.reporter.<name>.*}) that no options class on the class path declares.
 */
public final class SettingsCheck {
    /**
     * Keys read by filesystem plugins and metric, trace and event reporters, and Flink's internal
     * ones: no options class on the class path declares them, so they are not warned about.
     */
    static final List<String> UNDECLARED_PREFIXES = List.of(
            "metrics.reporter.", "traces.reporter.", "events.reporter.", "s3.", "s3a.", "fs.", "presto.s3.", "gs.", "azure.",
            "$internal.");

    private static final String SUGGESTIONS_FROM = "docs/configuration.md lists every streamtrain key";

    /** One setting that cannot be used: its key, its value (hidden when sensitive) and why. */
    public record Problem(String key, String value, String reason) {
        @Override
        public String toString() {
            return key + " = '" + value + "': " + reason;
        }
    }

    /** Errors stop a job before it starts; warnings are printed and the job goes on. */
    public record Result(List<Problem> errors, List<String> warnings) {
        /** This result, if it has no errors. */
        public Result orThrow() {
            if (!errors.isEmpty()) {
                throw new InvalidSettingsException(errors);
            }
            return this;
        }
    }

    private SettingsCheck() {}

    public static Result check(Configuration conf) {
        return check(conf.toMap());
    }

    public static Result check(Map<String, String> settings) {
        List<Problem> errors = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        new TreeMap<>(settings).forEach((key, value) -> {
            String shown = GlobalConfiguration.isSensitive(key) || KafkaClientProperties.isSecret(key) ? GlobalConfiguration.HIDDEN_CONTENT : value;
            if (key.startsWith(StreamtrainOptions.PREFIX)) {
                streamtrainProblem(key, value).ifPresent(reason -> errors.add(new Problem(key, shown, reason)));
            } else {
                FlinkOptionKeys flink = FlinkOptionKeys.common();
                if (!flink.knows(key) && !isMapEntry(flink::find, key)) {
                    flink = FlinkOptionKeys.onClasspath();
                }
                flink.find(key).flatMap(o -> o.parseProblem(value)).ifPresent(reason -> errors.add(new Problem(key, shown, reason)));
                if (flink.knows(key)) {
                    flink.deprecation(key).ifPresent(d -> warnings.add(key + ": deprecated: " + d));
                } else if (!isMapEntry(flink::find, key) && UNDECLARED_PREFIXES.stream().noneMatch(key::startsWith)) {
                    warnings.add(key + ": not a configuration key of Flink or streamtrain; nothing reads it unless a plugin does");
                }
            }
        });
        return new Result(errors, warnings);
    }

    private static Optional<String> streamtrainProblem(String key, String value) {
        Optional<KnownOption> option = StreamtrainOptions.find(key);
        if (option.isEmpty() && isMapEntry(StreamtrainOptions::find, key)) {
            return Optional.empty();
        }
        if (option.isEmpty()) {
            return Optional.of("unknown streamtrain key" + closest(key).map(k -> "; did you mean " + k + "?").orElse("")
                    + " (" + SUGGESTIONS_FROM + ")");
        }
        Optional<String> notParsed = option.get().parseProblem(value);
        if (notParsed.isPresent()) {
            return notParsed;
        }
        Configuration one = Configuration.fromMap(Map.of(key, value));
        return StreamtrainOptions.rule(key).flatMap(rule -> rule.problem(one));
    }

    /** A map option's entry given under its own key ({@code streamtrain.kafka.properties.security.protocol}). */
    private static boolean isMapEntry(Function<String, Optional<KnownOption>> find, String key) {
        for (int dot = key.lastIndexOf('.'); dot > 0; dot = key.lastIndexOf('.', dot - 1)) {
            Optional<KnownOption> prefix = find.apply(key.substring(0, dot));
            if (prefix.isPresent()) {
                return prefix.get().valueType() == Map.class;
            }
        }
        return false;
    }

    private static Optional<String> closest(String key) {
        LevenshteinDistance distance = LevenshteinDistance.getDefaultInstance();
        return StreamtrainOptions.all().stream()
                .map(KnownOption::key)
                .min(Comparator.comparingInt(k -> distance.apply(k, key)))
                .filter(k -> distance.apply(k, key) <= Math.max(3, key.length() / 5));
    }
}
