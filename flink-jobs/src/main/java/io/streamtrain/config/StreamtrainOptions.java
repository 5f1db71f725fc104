package io.streamtrain.config;

import io.streamtrain.join.JoinOptions;
import io.streamtrain.options.OptionRule;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TopicOptions;
import io.streamtrain.train.TrainingOptions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every {@code streamtrain.*} configuration key: the options classes, one per concern, with the
 * rules each declares. The settings check, {@code --print-config} and docs/configuration.md all
 * read this list, so a new option is checked and documented once it is in its class here.
 */
public final class StreamtrainOptions {
    public static final String PREFIX = "streamtrain.";

    /** An options class and the rules it declares for its options. */
    public record OptionsClass(Class<?> holder, String title, List<OptionRule<?>> rules) {}

    public static final List<OptionsClass> CLASSES = List.of(
            new OptionsClass(TrainingOptions.class, "Training job", TrainingOptions.RULES),
            new OptionsClass(PsOptions.class, "Parameter server", PsOptions.RULES),
            new OptionsClass(JoinOptions.class, "Joiner job", JoinOptions.RULES),
            new OptionsClass(TopicOptions.class, "Topics the jobs create", TopicOptions.RULES));

    private static final Map<String, KnownOption> BY_KEY = byKey();
    private static final Map<String, OptionRule<?>> RULES = rules();

    private StreamtrainOptions() {}

    /** The option of {@code key}, if streamtrain has one. */
    public static Optional<KnownOption> find(String key) {
        return Optional.ofNullable(BY_KEY.get(key));
    }

    /** The rule of {@code key}'s option beyond its type, if it has one. */
    public static Optional<OptionRule<?>> rule(String key) {
        return Optional.ofNullable(RULES.get(key));
    }

    /** Every streamtrain option, sorted by key. */
    public static Collection<KnownOption> all() {
        return BY_KEY.values();
    }

    /** The options {@code holder} declares itself (not those it re-exports), in declaration order. */
    public static List<KnownOption> of(Class<?> holder) {
        List<KnownOption> own = new ArrayList<>();
        for (KnownOption o : KnownOption.declaredIn(holder)) {
            if (BY_KEY.get(o.key()).declaredIn() == holder) {
                own.add(o);
            }
        }
        return own;
    }

    private static Map<String, KnownOption> byKey() {
        Map<String, KnownOption> result = new TreeMap<>();
        for (OptionsClass c : CLASSES) {
            // JoinOptions re-exports the training job's bootstrap servers: the first class declaring a key owns it.
            KnownOption.declaredIn(c.holder()).forEach(o -> result.putIfAbsent(o.key(), o));
        }
        return result;
    }

    private static Map<String, OptionRule<?>> rules() {
        Map<String, OptionRule<?>> result = new HashMap<>();
        CLASSES.forEach(c -> c.rules().forEach(r -> result.put(r.option().key(), r)));
        return result;
    }
}
