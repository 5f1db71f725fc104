package io.streamtrain.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ConfigConstants;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.plugin.DefaultPluginManager;
import org.apache.flink.core.plugin.DirectoryBasedPluginFinder;
import org.apache.flink.core.plugin.PluginManager;

/**
 * Flink's file systems for this process, with the plugins Flink's own scripts would load: the S3
 * file system ({@code flink-s3-fs-hadoop}) lives in {@code plugins/s3-fs-hadoop/}, each plugin in
 * a class loader of its own, because its shaded Hadoop and Guava must not meet the launcher's
 * class path. The plugins directory is {@code $FLINK_PLUGINS_DIR}, else {@code plugins/} beside
 * the launcher's jar (Maven puts the S3 plugin in {@code launcher/target/plugins/}). The JVMs of a
 * local cluster get the same directory ({@link #environment}). S3 settings ({@code s3.endpoint},
 * {@code s3.path.style.access}, {@code s3.access-key}, …) come from the Flink configuration given
 * here; without keys the plugin takes AWS's usual ones (environment, instance profile).
 */
public final class FileSystemPlugins {
    private FileSystemPlugins() {}

    /** The plugins found, loaded once per process: each initialisation would load them into new class loaders. */
    private static PluginManager plugins;

    /** (Re-)initialises Flink's file systems of this process with {@code conf} and the plugins found. */
    public static synchronized void initialize(Configuration conf) {
        if (plugins == null) {
            plugins = directory(System.getenv()).map(dir -> load(dir, conf)).orElse(null);
        }
        FileSystem.initialize(conf, plugins);
    }

    private static PluginManager load(Path dir, Configuration conf) {
        try {
            return new DefaultPluginManager(new DirectoryBasedPluginFinder(dir).findPlugins(), CoreOptions.getPluginParentFirstLoaderPatterns(conf));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Flink plugins in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The plugins directory, if there is one. */
    public static Optional<Path> directory(Map<String, String> env) {
        String configured = env.get(ConfigConstants.ENV_FLINK_PLUGINS_DIR);
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(Files::isDirectory);
        }
        try {
            Path code = Path.of(FileSystemPlugins.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // launcher/target/streamtrain.jar or, in tests, launcher/target/classes: both beside target/plugins
            return Optional.ofNullable(code.getParent()).map(p -> p.resolve("plugins")).filter(Files::isDirectory);
        } catch (URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The environment a Flink JVM of a local cluster needs to load the same plugins. */
    static Map<String, String> environment() {
        return directory(System.getenv())
                .map(dir -> Map.of(ConfigConstants.ENV_FLINK_PLUGINS_DIR, dir.toAbsolutePath().toString()))
                .orElse(Map.of());
    }
}
