package io.streamtrain.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Option;

/**
 * A command's Flink configuration as given (a picocli mixin): the configuration file with
 * {@code -D} over it. Job commands resolve their settings from it ({@link ConfigurationSources});
 * {@code export}, {@code score} and {@code serve} take it for Flink's file systems alone
 * ({@code s3.endpoint}, {@code s3.path.style.access}, {@code s3.access-key}, …), see
 * {@link StreamtrainCli#commandLine}.
 */
final class FlinkSettings {
    @Option(names = "-D", paramLabel = "KEY=VALUE",
            description = "Any Flink or streamtrain configuration key (docs/configuration.md), e.g. s3.endpoint; a flag for the same key wins over it.")
    Map<String, String> dynamic = new LinkedHashMap<>();

    @Option(names = "--flink-conf", paramLabel = "DIR|FILE",
            description = "Flink configuration file (config.yaml, or the directory holding it), beneath -D and the flags; "
                    + "default: $FLINK_CONF_DIR/config.yaml when FLINK_CONF_DIR is set.")
    Path flinkConf;

    /** The configuration file ({@code --flink-conf}, else {@code $FLINK_CONF_DIR} of {@code env}) with {@code -D} over it. */
    Configuration load(Map<String, String> env) {
        Configuration conf = FlinkConfFile.load(flinkConf, env);
        conf.addAll(Configuration.fromMap(dynamic));
        return conf;
    }
}
