package io.streamtrain.cli;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A named set of configuration keys that {@code bench --variant} trains with, in turn with the others, in one JVM. */
record BenchVariant(String name, Map<String, String> settings) {
    /** No variants given: the runs use {@code -D} alone. */
    static final BenchVariant NONE = new BenchVariant("", Map.of());

    /** The variants of {@code --variant} options, which must have distinct names; none given: {@link #NONE} alone. */
    static List<BenchVariant> parseAll(List<String> specs) {
        if (specs.isEmpty()) {
            return List.of(NONE);
        }
        List<BenchVariant> variants = specs.stream().map(BenchVariant::parse).toList();
        Set<String> names = new HashSet<>();
        for (BenchVariant v : variants) {
            if (!names.add(v.name)) {
                throw new IllegalArgumentException("--variant " + v.name + " is given twice: variants need distinct names");
            }
        }
        return variants;
    }

    /** Parses {@code NAME:KEY=VALUE[,KEY=VALUE...]}; {@code NAME:} alone adds no keys. */
    static BenchVariant parse(String spec) {
        int colon = spec.indexOf(':');
        String name = colon < 0 ? "" : spec.substring(0, colon).strip();
        if (!name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("--variant wants NAME:KEY=VALUE[,KEY=VALUE...] with a name of letters, digits, "
                    + "'_', '.' or '-', got '" + spec + "'");
        }
        Map<String, String> settings = new LinkedHashMap<>();
        for (String pair : spec.substring(colon + 1).split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--variant " + name + ": '" + pair + "' is not KEY=VALUE");
            }
            settings.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
        }
        return new BenchVariant(name, Map.copyOf(settings));
    }

    /** Its part of a run's topic name. */
    String topicSuffix() {
        return name.isEmpty() ? "" : "-" + name;
    }
}
