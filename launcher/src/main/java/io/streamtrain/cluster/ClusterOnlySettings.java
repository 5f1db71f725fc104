package io.streamtrain.cluster;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The settings a Flink process reads only when it starts its file systems and plugins: file
 * systems ({@code fs.*}), their S3, GCS and Hadoop settings and keys ({@code s3.*},
 * {@code s3a.*}, {@code presto.s3.*}, {@code gs.*}, {@code flink.hadoop.*}) and the plugin class
 * loaders. In a job submitted to a running session cluster they change nothing (its JVMs started
 * their file systems from the cluster's own configuration), yet they would sit in the job's
 * configuration for the cluster's REST API and logs to show: a secret key among them. So a
 * submission {@linkplain #split leaves them out} and says so, naming the keys, never their values.
 */
public final class ClusterOnlySettings {
    private static final List<String> PREFIXES = List.of("fs.", "s3.", "s3a.", "s3p.", "presto.s3.", "gs.", "flink.hadoop.",
            "plugin.classloader.");

    private ClusterOnlySettings() {}

    /** A job's configuration without the cluster-only settings, and the names of those left out (sorted). */
    public record Split(Map<String, String> submitted, SortedSet<String> leftOut) {
        /** One line for the command's output naming the keys left out, or null when none were. */
        public String notice(String command) {
            return leftOut.isEmpty() ? null : ClusterOnlySettings.leftOut(command, leftOut);
        }
    }

    /** The line that names {@code keys} (never their values) as left out of a job's configuration, and why. */
    public static String leftOut(String command, Collection<String> keys) {
        return command + ": left out of the submitted job's configuration: " + String.join(", ", keys)
                + " (file-system settings take effect only when a Flink process starts: the session cluster's own configuration"
                + " must carry them)";
    }

    /** Whether a job's configuration cannot change {@code key} on a running cluster. */
    public static boolean isClusterOnly(String key) {
        return PREFIXES.stream().anyMatch(key::startsWith);
    }

    public static Split split(Map<String, String> configuration) {
        Map<String, String> submitted = new TreeMap<>();
        SortedSet<String> leftOut = new TreeSet<>();
        configuration.forEach((key, value) -> {
            if (isClusterOnly(key)) {
                leftOut.add(key);
            } else {
                submitted.put(key, value);
            }
        });
        return new Split(submitted, leftOut);
    }
}
