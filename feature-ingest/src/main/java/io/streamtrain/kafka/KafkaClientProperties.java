package io.streamtrain.kafka;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The user's Kafka client properties file ({@code --kafka-properties FILE}): Kafka's own client
 * properties format, as its tools' {@code --command-config} read it. Every command that talks to
 * Kafka loads it here, and every client the command or its job makes gets its entries
 * ({@link KafkaConnection}). Also decides which properties are secrets, so that nothing prints them.
 */
public final class KafkaClientProperties {
    /** The option every command that talks to Kafka takes. */
    public static final String OPTION = "--kafka-properties";

    /** Its help text (a compile-time constant, for the commands' annotations). */
    public static final String DESCRIPTION = "Kafka client properties file (Kafka's format, as its tools' --command-config:"
            + " security.protocol, sasl.*, ssl.*, timeouts, ...), for every Kafka client this command and its job make.";

    /** Shown in place of a secret's value. */
    public static final String HIDDEN = "******";

    /**
     * Secrets by name where Kafka's own config definitions do not say (a property of a plugin, a
     * misspelt one): Kafka's clients log such values, but we print none.
     */
    private static final Pattern SECRET_NAME = Pattern.compile(".*(password|secret|jaas|credential|private.key|ssl\\.key\\.|keystore\\.key).*");

    private static final ConfigDef[] CLIENT_CONFIGS = {ProducerConfig.configDef(), ConsumerConfig.configDef(), AdminClientConfig.configDef()};

    private KafkaClientProperties() {}

    /** The properties in {@code file}, by name; an empty map for null (no file given). */
    public static Map<String, String> load(Path file) {
        Map<String, String> result = new TreeMap<>();
        if (file == null) {
            return result;
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(OPTION + ": no such file: " + file);
        } catch (IOException e) {
            throw new IllegalArgumentException(OPTION + ": could not read " + file + ": " + e.getMessage(), e);
        }
        p.stringPropertyNames().forEach(k -> result.put(k, p.getProperty(k).trim()));
        if (result.containsKey("bootstrap.servers")) {
            throw new IllegalArgumentException(OPTION + " " + file + ": bootstrap.servers belongs to --bootstrap"
                    + " (or streamtrain.kafka.bootstrap-servers), not to the client properties");
        }
        return result;
    }

    /**
     * True for a property whose value must never be shown: every Kafka client setting of the
     * PASSWORD type ({@code sasl.jaas.config}, {@code ssl.keystore.key}, {@code *.password}, ...),
     * and any name that looks like one. {@code key} may carry a prefix, e.g.
     * {@code streamtrain.kafka.properties.sasl.jaas.config} or {@code properties.ssl.key.password}.
     */
    public static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        if (SECRET_NAME.matcher(k).matches()) {
            return true;
        }
        for (ConfigDef def : CLIENT_CONFIGS) {
            for (Map.Entry<String, ConfigDef.ConfigKey> e : def.configKeys().entrySet()) {
                if (e.getValue().type == ConfigDef.Type.PASSWORD && (k.equals(e.getKey()) || k.endsWith("." + e.getKey()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code properties} with every secret's value replaced by {@link #HIDDEN}, sorted by key. */
    public static Map<String, String> masked(Map<String, String> properties) {
        Map<String, String> result = new TreeMap<>();
        properties.forEach((k, v) -> result.put(k, isSecret(k) ? HIDDEN : v));
        return result;
    }
}
