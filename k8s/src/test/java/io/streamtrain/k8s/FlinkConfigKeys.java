package io.streamtrain.k8s;

import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TrainingOptions;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;

/**
 * Every configuration key Flink, the operator's autoscaler and streamtrain define as a
 * {@link ConfigOption}: the static ConfigOption fields of every {@code org.apache.flink..*Options}
 * class in the flink-* jars on the test classpath (flink-core, flink-runtime, flink-kubernetes,
 * flink-statebackend-rocksdb, flink-autoscaler, ...), plus {@link TrainingOptions} and {@link PsOptions}.
 * Connector options (properties of one source or table, not cluster configuration) are left out,
 * and so are the options of metric reporter implementations (org.apache.flink.metrics..*, read
 * under {@code metrics.reporter.<name>.}). Templated keys ({@code external-resource.<name>.amount})
 * are not matched. A few options other classes declare with a bare key but read under a prefix
 * (SecurityOptions' per-provider "enabled") therefore also pass as top-level keys.
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

    /** Options classes whose keys outside their own namespace are relative to one reporter. */
    private static final Map<String, String> REPORTER_SCOPED_CLASSES = Map.of(
            "org.apache.flink.configuration.MetricOptions", "metrics.",
            "org.apache.flink.configuration.TraceOptions", "traces.",
            "org.apache.flink.configuration.EventOptions", "events.");

    private static FlinkConfigKeys onClasspath;

    private final Map<String, ConfigOption<?>> options = new HashMap<>();
    private final Map<String, String> deprecated = new HashMap<>();
    private final Set<String> fallbacks = new HashSet<>();
    private final Set<String> metricReporterKeys = new TreeSet<>();
    final Set<String> scannedClasses = new TreeSet<>();
    final List<String> unloadableClasses = new ArrayList<>();

    private FlinkConfigKeys() {}

    static synchronized FlinkConfigKeys onClasspath() {
        if (onClasspath == null) {
            FlinkConfigKeys keys = new FlinkConfigKeys();
            keys.scanFlinkJars();
            keys.add(TrainingOptions.class);
            keys.add(PsOptions.class);
            onClasspath = keys;
        }
        return onClasspath;
    }

    boolean knows(String key) {
        return options.containsKey(key) || fallbacks.contains(key) || deprecated.containsKey(key);
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
        if (deprecated.containsKey(key)) {
            return "deprecated: " + deprecated.get(key);
        }
        ConfigOption<?> option = options.get(key);
        if (option != null) {
            try {
                Configuration.fromMap(Map.of(key, value)).get(option);
            } catch (RuntimeException e) {
                return "value '" + value + "' is not a valid " + option.key() + ": " + e.getMessage();
            }
            return null;
        }
        return fallbacks.contains(key) ? null : "not a known configuration key";
    }

    private String reporterProblem(String key, Map<String, String> conf) {
        String rest = key.substring(METRIC_REPORTER_PREFIX.length());
        int dot = rest.indexOf('.');
        if (dot <= 0) {
            return "expected metrics.reporter.<name>.<key>";
        }
        String reporter = rest.substring(0, dot);
        String suffix = rest.substring(dot + 1);
        if (metricReporterKeys.contains(suffix)) {
            return suffix.equals("factory.class") ? factoryProblem(conf.get(key)) : null;
        }
        String factory = conf.get(METRIC_REPORTER_PREFIX + reporter + ".factory.class");
        if (factory == null) {
            return "reporter '" + reporter + "' has no factory.class";
        }
        return reporterArguments(factory).contains(suffix)
                ? null
                : "neither a reporter option " + metricReporterKeys + " nor an argument of " + factory;
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

    private void scanFlinkJars() {
        String classpath = System.getProperty("java.class.path");
        for (String element : classpath.split(File.pathSeparator)) {
            File file = new File(element);
            if (file.isFile() && file.getName().startsWith("flink-") && file.getName().endsWith(".jar")) {
                scanJar(file);
            }
        }
    }

    private void scanJar(File jar) {
        try (JarFile jf = new JarFile(jar)) {
            for (Enumeration<JarEntry> entries = jf.entries(); entries.hasMoreElements(); ) {
                String name = entries.nextElement().getName();
                if (isOptionsClass(name)) {
                    String className = name.substring(0, name.length() - ".class".length()).replace('/', '.');
                    try {
                        add(Class.forName(className, true, FlinkConfigKeys.class.getClassLoader()));
                    } catch (LinkageError | ClassNotFoundException e) {
                        unloadableClasses.add(className + " (" + e + ")");
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isOptionsClass(String entry) {
        return entry.startsWith("org/apache/flink/") && entry.endsWith("Options.class") && !entry.contains("$")
                && !entry.contains("/shaded/") && !entry.contains("/table/")
                && !entry.startsWith("org/apache/flink/connector/") && !entry.startsWith("org/apache/flink/streaming/connectors/");
    }

    private void add(Class<?> c) {
        scannedClasses.add(c.getName());
        String ownNamespace = REPORTER_SCOPED_CLASSES.get(c.getName());
        for (Field f : c.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || !ConfigOption.class.isAssignableFrom(f.getType())) {
                continue;
            }
            ConfigOption<?> option = read(f);
            String key = option.key();
            if (ownNamespace != null && !key.startsWith(ownNamespace)) {
                if (ownNamespace.equals("metrics.")) {
                    metricReporterKeys.add(key);
                }
            } else if (!c.getName().startsWith("org.apache.flink.metrics.") && !key.contains("<") && !key.contains("#")) {
                options.putIfAbsent(key, option);
                if (f.isAnnotationPresent(Deprecated.class)) {
                    deprecated.putIfAbsent(key, "@Deprecated " + c.getSimpleName() + "." + f.getName());
                }
                for (FallbackKey fallback : option.fallbackKeys()) {
                    if (fallback.isDeprecated()) {
                        deprecated.putIfAbsent(fallback.getKey(), "use " + key);
                    } else {
                        fallbacks.add(fallback.getKey());
                    }
                }
            }
        }
    }

    private static ConfigOption<?> read(Field f) {
        try {
            f.setAccessible(true);
            return (ConfigOption<?>) f.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
