package io.streamtrain.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.ConfigConstants;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * The Flink configuration file a command reads, as Flink reads it
 * ({@link GlobalConfiguration#loadConfiguration(String)}: {@code config.yaml}, nested or flat keys):
 * the one {@code --flink-conf} names (a directory, or a file of any name), else the one in
 * {@code $FLINK_CONF_DIR}, else none.
 */
final class FlinkConfFile {
    private FlinkConfFile() {}

    static Configuration load(Path flinkConf, Map<String, String> env) {
        if (flinkConf != null) {
            return Files.isDirectory(flinkConf) ? loadDirectory(flinkConf, "--flink-conf") : loadFile(flinkConf);
        }
        String dir = env.get(ConfigConstants.ENV_FLINK_CONF_DIR);
        return dir == null || dir.isBlank() ? new Configuration() : loadDirectory(Path.of(dir), "$" + ConfigConstants.ENV_FLINK_CONF_DIR);
    }

    private static Configuration loadDirectory(Path dir, String from) {
        Path file = dir.resolve(GlobalConfiguration.FLINK_CONF_FILENAME);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(from + " names " + dir.toAbsolutePath() + ", which holds no "
                    + GlobalConfiguration.FLINK_CONF_FILENAME + ": Flink reads its configuration from that file");
        }
        return GlobalConfiguration.loadConfiguration(dir.toString());
    }

    /** Flink's loader reads {@code config.yaml} of a directory: a file of another name is linked as that into a scratch one. */
    private static Configuration loadFile(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--flink-conf " + file + ": no such file or directory");
        }
        if (file.getFileName().toString().equals(GlobalConfiguration.FLINK_CONF_FILENAME)) {
            return GlobalConfiguration.loadConfiguration(file.toAbsolutePath().getParent().toString());
        }
        Path scratch = null;
        try {
            scratch = Files.createTempDirectory("streamtrain-flink-conf");
            Files.createSymbolicLink(scratch.resolve(GlobalConfiguration.FLINK_CONF_FILENAME), file.toAbsolutePath());
            return GlobalConfiguration.loadConfiguration(scratch.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("--flink-conf " + file + ": cannot read it: " + e.getMessage(), e);
        } finally {
            deleteQuietly(scratch);
        }
    }

    private static void deleteQuietly(Path scratch) {
        if (scratch == null) {
            return;
        }
        try {
            Files.deleteIfExists(scratch.resolve(GlobalConfiguration.FLINK_CONF_FILENAME));
            Files.deleteIfExists(scratch);
        } catch (IOException e) {
            scratch.toFile().deleteOnExit();
        }
    }
}
