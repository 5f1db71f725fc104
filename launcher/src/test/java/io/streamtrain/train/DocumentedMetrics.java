package io.streamtrain.train;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The Prometheus names docs/metrics.md documents: the first column of its "Prometheus names" table. */
final class DocumentedMetrics {
    private static final Pattern ROW = Pattern.compile("^\\| `(flink_[A-Za-z0-9_]+)`");

    private DocumentedMetrics() {}

    static List<String> prometheusNames(Path metricsMd) throws Exception {
        List<String> names = new ArrayList<>();
        boolean inSection = false;
        for (String line : Files.readAllLines(metricsMd)) {
            if (line.startsWith("## ")) {
                inSection = line.startsWith("## Prometheus names");
            }
            Matcher m = ROW.matcher(line);
            if (inSection && m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}
