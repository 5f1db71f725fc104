package io.streamtrain.cli;

import io.streamtrain.config.KnownOption;
import io.streamtrain.kafka.KafkaClientProperties;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;

/** {@code --print-config}: every setting a run would use, set ones and the defaults of its options, one {@code key: value} a line. */
final class EffectiveConfiguration {
    private EffectiveConfiguration() {}

    /** {@code conf} with the default of every option of {@code optionsClasses} it does not set, sorted, secrets hidden. */
    static List<String> lines(Configuration conf, List<Class<?>> optionsClasses) {
        Map<String, String> effective = new TreeMap<>(conf.toMap());
        for (Class<?> holder : optionsClasses) {
            for (KnownOption o : KnownOption.declaredIn(holder)) {
                if (!effective.containsKey(o.key()) && o.option().hasDefaultValue()) {
                    effective.put(o.key(), KnownOption.valueText(o.option(), o.option().defaultValue()));
                }
            }
        }
        // Flink's list of sensitive keys misses some of Kafka's (ssl.keystore.key, ssl.truststore.certificates).
        effective.replaceAll((key, value) -> KafkaClientProperties.isSecret(key) ? KafkaClientProperties.HIDDEN : value);
        return ConfigurationUtils.hideSensitiveValues(effective).entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue())
                .sorted()
                .toList();
    }
}
