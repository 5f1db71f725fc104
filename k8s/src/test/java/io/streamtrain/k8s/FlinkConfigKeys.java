package io.streamtrain.k8s;

import io.streamtrain.config.FlinkOptionKeys;
import io.streamtrain.config.KnownOption;
import io.streamtrain.config.SettingsCheck;
import io.streamtrain.config.StreamtrainOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;

/**
 * Every configuration key Flink, the operator's autoscaler and streamtrain define as a
 * {@link ConfigOption}: Flink's as {@link FlinkOptionKeys} finds them on the test classpath
 * (flink-core, flink-runtime, flink-kubernetes, flink-statebackend-rocksdb, flink-autoscaler, ...),
 * plus {@link StreamtrainOptions}, whose keys must also satisfy their rules.
 *
 * <p>A flinkConfiguration key is accepted if it is one of those keys or a fallback key of one, and
 * its value parses as the option's type. Deprecated keys are reported with their replacement.
 * Beyond that, only these are accepted, each listed here or in {@link OperatorKeysNotOnClasspath}:
 * <ul>
 *   <li>{@code metrics.reporter.<name>.<key>}, where key is a reporter-scoped MetricOptions key
 *       (factory.class, interval, filter.includes, ...) or an {@code ARG_*} argument constant of the
 *       reporter factory that {@code metrics.reporter.<name>.factory.class} names (Prometheus: port);
 *   <li>{@link #FILESYSTEM_PLUGIN_KEYS}: read by Flink's S3 filesystem plugins, not ConfigOptions.
 * </ul>
 */
final class FlinkConfigKeys {
    static final String METRIC_REPORTER_PREFIX = "metrics.reporter.";

    static final Map<String, String> FILESYSTEM_PLUGIN_KEYS = Map.of(
            "s3.endpoint", "S3 endpoint of a non-AWS store (MinIO)",
            "s3.path.style.access", "path-style bucket addressing (MinIO)",
            "s3.access-key", "static S3 credentials",
            "s3.secret-key", "static S3 credentials");

    private static FlinkConfigKeys onClasspath;

    private final FlinkOptionKeys flink;

    private FlinkConfigKeys(FlinkOptionKeys flink) {
        this.flink = flink;
    }

    static synchronized FlinkConfigKeys onClasspath() {
        if (onClasspath == null) {
            onClasspath = new FlinkConfigKeys(FlinkOptionKeys.onClasspath());
        }
        return onClasspath;
    }

    Set<String> scannedClasses() {
        return flink.scannedClasses();
    }

    List<String> unloadableClasses() {
        return flink.unloadableClasses();
    }

    boolean knows(String key) {
        return flink.knows(key) || StreamtrainOptions.find(key).isPresent();
    }

    /** What is wrong with a flinkConfiguration: one line per unknown, deprecated or unparsable key. */
    List<String> problems(Map<String, String> conf) {
        List<String> problems = new ArrayList<>();
        conf.forEach((key, value) -> {
            String problem = problem(key, value, conf);
            if (problem != null) {
                problems.add(key + ": " + problem);
            }
        });
        return problems;
    }

    private String problem(String key, String value, Map<String, String> conf) {
        if (OperatorKeysNotOnClasspath.KEYS.containsKey(key) || FILESYSTEM_PLUGIN_KEYS.containsKey(key)) {
            return null;
        }
        if (key.startsWith(METRIC_REPORTER_PREFIX)) {
            return reporterProblem(key, conf);
        }
        if (key.startsWith(StreamtrainOptions.PREFIX)) {
            return SettingsCheck.check(Map.of(key, value)).errors().stream().findFirst().map(SettingsCheck.Problem::reason).orElse(null);
        }
        Optional<String> deprecation = flink.deprecation(key);
        if (deprecation.isPresent()) {
            return "deprecated: " + deprecation.get();
        }
        Optional<KnownOption> option = flink.find(key);
        if (option.isPresent()) {
            return option.get().parseProblem(value).map(p -> "value '" + value + "' is not a valid " + option.get().key() + ": " + p)
                    .orElse(null);
        }
        return "not a known configuration key";
    }

    private String reporterProblem(String key, Map<String, String> conf) {
        String rest = key.substring(METRIC_REPORTER_PREFIX.length());
        int dot = rest.indexOf('.');
        if (dot <= 0) {
            return "expected metrics.reporter.<name>.<key>";
        }
        String reporter = rest.substring(0, dot);
        String suffix = rest.substring(dot + 1);
        if (flink.reporterKeys().contains(suffix)) {
            return suffix.equals("factory.class") ? factoryProblem(conf.get(key)) : null;
        }
        String factory = conf.get(METRIC_REPORTER_PREFIX + reporter + ".factory.class");
        if (factory == null) {
            return "reporter '" + reporter + "' has no factory.class";
        }
        return reporterArguments(factory).contains(suffix)
                ? null
                : "neither a reporter option " + flink.reporterKeys() + " nor an argument of " + factory;
    }

    private static String factoryProblem(String className) {
        try {
            Class<?> c = Class.forName(className);
            return org.apache.flink.metrics.reporter.MetricReporterFactory.class.isAssignableFrom(c)
                    ? null
                    : className + " is not a MetricReporterFactory";
        } catch (ClassNotFoundException e) {
            return "no class " + className;
        }
    }

    /** The values of the factory's {@code ARG_*} String constants: the arguments it reads. */
    private static Set<String> reporterArguments(String factoryClass) {
        Set<String> args = new HashSet<>();
        try {
            for (Field f : Class.forName(factoryClass).getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && f.getName().startsWith("ARG_")) {
                    f.setAccessible(true);
                    args.add((String) f.get(null));
                }
            }
        } catch (ReflectiveOperationException e) {
            return args;
        }
        return args;
    }
}
