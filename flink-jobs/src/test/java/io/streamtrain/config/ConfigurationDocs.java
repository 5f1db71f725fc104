package io.streamtrain.config;

import io.streamtrain.options.OptionRule;
import io.streamtrain.sql.TrainingTableOptions;
import io.streamtrain.train.RequiredFlinkSettings;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.Description;
import org.apache.flink.configuration.description.HtmlFormatter;

/**
 * docs/configuration.md, generated from the options classes ({@link StreamtrainOptions}), their
 * rules, the SQL table's own options and {@link RequiredFlinkSettings}, the way Flink's
 * {@code ConfigOptionsDocGenerator} writes its reference. {@link ConfigurationDocsTest} fails when
 * the file differs from what this writes.
 */
final class ConfigurationDocs {
    private ConfigurationDocs() {}

    static String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("""
                # Configuration

                <!-- Generated from the options classes by ConfigurationDocs; ConfigurationDocsTest fails when this
                     file is stale and says how to regenerate it. Do not edit by hand. -->

                Every streamtrain setting is a Flink `ConfigOption` with a key under `streamtrain.`, set the way
                Flink settings are set. For `streamtrain train`, `backfill` and `join` one value wins, in this order:

                1. an explicit command-line flag (`--batch-size 64`); flags have no defaults of their own;
                2. `-D key=value` (`-D streamtrain.train.batch-size=64`);
                3. the Flink configuration file: `config.yaml` in `--flink-conf DIR|FILE`, or else in `$FLINK_CONF_DIR`;
                4. the option's default below.

                `train --print-config` prints the settings that result, one `key: value` a line, and exits.
                A deployed job (`TrainingApplication`, the Kubernetes manifests) reads the cluster's Flink
                configuration. Every setting is checked before a job starts: an unknown `streamtrain.*` key, or a
                value not of its type or outside its range, stops the command with the key, the value and what is
                allowed; a key Flink does not know either gets a warning. A SQL table's options and a script's
                `SET` statements are checked the same way.

                """);
        for (StreamtrainOptions.OptionsClass c : StreamtrainOptions.CLASSES) {
            md.append("## ").append(c.title()).append(" (`").append(c.holder().getSimpleName()).append("`)\n\n");
            table(md, StreamtrainOptions.of(c.holder()), c.rules());
        }
        md.append("""
                ## SQL tables (`'connector' = 'streamtrain'`)

                A streamtrain table takes the training job's and the parameter server's options above under short
                names: the key without `streamtrain.` and without `train.` or `ps.` (`streamtrain.train.batch-size`
                is `'batch-size'`, `streamtrain.ps.dim` is `'dim'`, `streamtrain.kafka.bootstrap-servers` is
                `'kafka.bootstrap-servers'`, `streamtrain.topics.feedback.retention` is `'topics.feedback.retention'`),
                except `start-from`, `start-offsets` and `stop-offsets`: where the loop starts is the sink's
                business. Kafka client properties are `'properties.<key>'`, over the session's
                `streamtrain.kafka.properties.<key>` (`sql --kafka-properties`, `sql-gateway --kafka-properties`).
                The table's name is its `name`, and `<table>.examples` its `topic`. Its own options:

                """);
        table(md, KnownOption.declaredIn(TrainingTableOptions.class), TrainingTableOptions.RULES);
        md.append("""
                ## Flink settings the jobs require (`RequiredFlinkSettings`)

                Every way a job starts applies these: a forced one whatever the configuration says, the others
                unless the configuration sets them. The Kubernetes manifests carry them (`K8sRequiredSettingsTest`).

                | key | value | |
                |---|---|---|
                """);
        for (RequiredFlinkSettings.Setting<?> s : RequiredFlinkSettings.SETTINGS) {
            md.append("| `").append(s.option().key()).append("` | ").append(valueText(s.option(), s.value())).append(" | ")
                    .append(s.forced() ? "forced" : "default").append(" |\n");
        }
        return md.toString();
    }

    private static void table(StringBuilder md, List<KnownOption> options, List<OptionRule<?>> rules) {
        md.append("| key | default | type | description |\n|---|---|---|---|\n");
        for (KnownOption o : options) {
            ConfigOption<?> option = o.option();
            String allowed = rules.stream().filter(r -> r.option().key().equals(o.key())).map(r -> ", " + r.allowed())
                    .findFirst().orElse("");
            md.append("| `").append(o.key()).append("` | ")
                    .append(option.hasDefaultValue() ? valueText(option, option.defaultValue()) : "(none)").append(" | ")
                    .append(cell(o.expected() + allowed)).append(" | ")
                    .append(cell(html(option.description()) + enumDescriptions(o.valueType()))).append(" |\n");
        }
        md.append('\n');
    }

    private static String valueText(ConfigOption<?> option, Object value) {
        return "`" + cell(KnownOption.valueText(option, value)) + "`";
    }

    private static String enumDescriptions(Class<?> type) {
        if (!type.isEnum() || !DescribedEnum.class.isAssignableFrom(type)) {
            return "";
        }
        return Arrays.stream(type.getEnumConstants())
                .map(e -> "<br/>`" + e + "`: " + html(Description.builder().text("%s", ((DescribedEnum) e).getDescription()).build()))
                .collect(Collectors.joining());
    }

    private static String html(Description description) {
        return new HtmlFormatter().format(description);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
