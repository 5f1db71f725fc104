package io.streamtrain.config;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.flink.configuration.BlobServerOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ClusterOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.RpcOptions;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBNativeMetricOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;

/**
 * Every configuration key Flink defines as a {@link ConfigOption}, found the way Flink's own
 * {@code ConfigOptionsDocGenerator} finds them: the static ConfigOption fields of every
 * {@code org.apache.flink..*Options} class, here read from the Flink classes on the class path
 * (each {@code flink-*.jar}, and the jar or directory that holds {@link CoreOptions}: Flink's
 * distribution jar, or a jar that shades Flink in). Connector options (properties of one source
 * or table, not configuration keys) are left out, and so are the options of metric reporter
 * implementations ({@code org.apache.flink.metrics..*}, read under {@code metrics.reporter.<name>.}).
 * Templated keys ({@code external-resource.<name>.amount}) are not matched.
 *
 * <p>Loading every options class takes seconds (some initialise parts of Flink's runtime), so
 * {@link #common()} holds the classes a training job's settings come from, and a key not among
 * them is looked up in {@link #onClasspath()}.
 */
public final class FlinkOptionKeys {
    /** Options classes whose keys outside their own namespace are relative to one reporter. */
    private static final Map<String, String> REPORTER_SCOPED_CLASSES = Map.of(
            "org.apache.flink.configuration.MetricOptions", "metrics.",
            "org.apache.flink.configuration.TraceOptions", "traces.",
            "org.apache.flink.configuration.EventOptions", "events.");

    private static final List<Class<?>> COMMON_CLASSES = List.of(
            CoreOptions.class, CheckpointingOptions.class, StateBackendOptions.class, StateRecoveryOptions.class,
            RestartStrategyOptions.class, ExecutionOptions.class, PipelineOptions.class, TaskManagerOptions.class,
            JobManagerOptions.class, RestOptions.class, MetricOptions.class, HighAvailabilityOptions.class,
            BlobServerOptions.class, DeploymentOptions.class, ClusterOptions.class, SecurityOptions.class,
            RpcOptions.class, WebOptions.class, NettyShuffleEnvironmentOptions.class, RocksDBOptions.class,
            RocksDBConfigurableOptions.class, RocksDBNativeMetricOptions.class);

    private static FlinkOptionKeys common;
    private static FlinkOptionKeys onClasspath;

    private final Map<String, KnownOption> options = new HashMap<>();
    private final Map<String, String> deprecated = new HashMap<>();
    private final Map<String, KnownOption> fallbacks = new HashMap<>();
    private final Set<String> reporterKeys = new TreeSet<>();
    private final Set<String> scannedClasses = new TreeSet<>();
    private final List<String> unloadableClasses = new ArrayList<>();

    private FlinkOptionKeys() {}

    /** The keys of the Flink on this class path, scanned once (a few hundred classes, under a second). */
    public static synchronized FlinkOptionKeys onClasspath() {
        if (onClasspath == null) {
            FlinkOptionKeys keys = new FlinkOptionKeys();
            flinkClassLocations().forEach(keys::scan);
            onClasspath = keys;
        }
        return onClasspath;
    }

    /** The keys of the options classes a training job's settings usually come from: a quick first look. */
    public static synchronized FlinkOptionKeys common() {
        if (common == null) {
            FlinkOptionKeys keys = new FlinkOptionKeys();
            COMMON_CLASSES.forEach(keys::add);
            common = keys;
        }
        return common;
    }

    /** The option of {@code key} (its own key or a fallback key of it). */
    public Optional<KnownOption> find(String key) {
        return Optional.ofNullable(options.getOrDefault(key, fallbacks.get(key)));
    }

    /** Whether {@code key} is an option's key, a fallback key or a deprecated key. */
    public boolean knows(String key) {
        return options.containsKey(key) || fallbacks.containsKey(key) || deprecated.containsKey(key);
    }

    /** Why {@code key} should no longer be used and what replaces it, if it is deprecated. */
    public Optional<String> deprecation(String key) {
        return Optional.ofNullable(deprecated.get(key));
    }

    /** Keys a metric reporter reads under {@code metrics.reporter.<name>.} (factory.class, interval, ...). */
    public Set<String> reporterKeys() {
        return reporterKeys;
    }

    public Set<String> scannedClasses() {
        return scannedClasses;
    }

    public List<String> unloadableClasses() {
        return unloadableClasses;
    }

    private static Set<Path> flinkClassLocations() {
        Set<Path> locations = new LinkedHashSet<>();
        try {
            locations.add(Path.of(CoreOptions.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (URISyntaxException | RuntimeException e) {
            // no code source (an unusual class loader): the class path below still has the flink-* jars
        }
        for (String element : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(element);
            if (p.getFileName() != null && p.getFileName().toString().startsWith("flink-") && element.endsWith(".jar")) {
                locations.add(p);
            }
        }
        return locations;
    }

    private void scan(Path location) {
        if (Files.isDirectory(location)) {
            try (Stream<Path> files = Files.walk(location)) {
                files.map(f -> location.relativize(f).toString().replace(File.separatorChar, '/')).forEach(this::scanEntry);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else if (Files.isRegularFile(location)) {
            try (JarFile jar = new JarFile(location.toFile())) {
                for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                    scanEntry(entries.nextElement().getName());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void scanEntry(String entry) {
        if (!isOptionsClass(entry)) {
            return;
        }
        String className = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
        if (scannedClasses.contains(className)) {
            return;
        }
        try {
            add(Class.forName(className, true, FlinkOptionKeys.class.getClassLoader()));
        } catch (LinkageError | ClassNotFoundException e) {
            unloadableClasses.add(className + " (" + e + ")");
        }
    }

    private static boolean isOptionsClass(String entry) {
        return entry.startsWith("org/apache/flink/") && entry.endsWith("Options.class") && !entry.contains("$")
                && !entry.contains("/shaded/")
                && (!entry.contains("/table/") || entry.contains("/table/api/config/"))
                && !entry.startsWith("org/apache/flink/connector/") && !entry.startsWith("org/apache/flink/streaming/connectors/");
    }

    private void add(Class<?> c) {
        scannedClasses.add(c.getName());
        String ownNamespace = REPORTER_SCOPED_CLASSES.get(c.getName());
        for (KnownOption o : KnownOption.declaredIn(c)) {
            String key = o.key();
            if (ownNamespace != null && !key.startsWith(ownNamespace)) {
                if (ownNamespace.equals("metrics.")) {
                    reporterKeys.add(key);
                }
            } else if (!c.getName().startsWith("org.apache.flink.metrics.") && !key.contains("<") && !key.contains("#")) {
                options.putIfAbsent(key, o);
                if (o.deprecated()) {
                    deprecated.putIfAbsent(key, "@Deprecated " + c.getSimpleName());
                }
                for (FallbackKey fallback : o.option().fallbackKeys()) {
                    if (fallback.isDeprecated()) {
                        deprecated.putIfAbsent(fallback.getKey(), "use " + key);
                    } else {
                        fallbacks.putIfAbsent(fallback.getKey(), o);
                    }
                }
            }
        }
    }
}
