package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code k8s/grafana/streamtrain-training.json}: every metric its queries use is one that
 * docs/metrics.md documents (whose names ObservabilityIT checks against a real scrape), and it
 * draws every metric the observability issue asks for.
 */
class K8sGrafanaDashboardTest {
    static final Path DASHBOARD = ManifestTree.ROOT.resolve("grafana/streamtrain-training.json");
    static final Path METRICS_MD = ManifestTree.REPOSITORY.resolve("docs/metrics.md");
    private static final Pattern METRIC = Pattern.compile("\\bflink_[A-Za-z0-9_]+");
    private static final Pattern DOCUMENTED_ROW = Pattern.compile("^\\| `(flink_[A-Za-z0-9_]+)`");

    private final JsonNode dashboard = read();

    private static JsonNode read() {
        try {
            return new ObjectMapper().readTree(DASHBOARD.toFile());
        } catch (Exception e) {
            throw new AssertionError("cannot parse " + DASHBOARD, e);
        }
    }

    @Test
    void everyQueriedMetricIsDocumented() throws Exception {
        Set<String> documented = documentedNames();
        assertTrue(documented.size() >= 15, "docs/metrics.md lists the Prometheus names: " + documented);
        Set<String> undocumented = new TreeSet<>();
        for (String expr : queries()) {
            Matcher m = METRIC.matcher(expr);
            while (m.find()) {
                if (!documented.contains(m.group())) {
                    undocumented.add(m.group());
                }
            }
        }
        assertEquals(Set.of(), undocumented, "metrics the dashboard queries but docs/metrics.md does not list");
    }

    @Test
    void drawsEveryMetricTheIssueAsksFor() {
        String all = String.join("\n", panelQueries());
        for (String needed : List.of("worker_examplesPerSecond", "batcher_partition_lag", "worker_windowAuc",
                "worker_windowLogloss", "ps_gradientStalenessMs{job_name=~\"$job\", quantile=\"0.5\"}",
                "ps_gradientStalenessMs{job_name=~\"$job\", quantile=\"0.99\"}", "column_family=\"rows\"",
                "ps_rowsAdmitted", "ps_rowsExpired", "by (reason)", "lastCheckpointDuration",
                "lastCheckpointFullSize", "numRestarts", "worker_parallelism")) {
            assertTrue(all.contains(needed), "a panel queries " + needed);
        }
    }

    @Test
    void panelsAreWellFormed() {
        assertEquals("streamtrain-training", dashboard.path("uid").asText());
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            String title = panel.path("title").asText();
            assertTrue(ids.add(panel.path("id").asInt()), "unique panel id: " + title);
            assertFalse(title.isBlank(), "every panel has a title");
            assertEquals("${datasource}", panel.path("datasource").path("uid").asText(), title + ": the datasource variable");
            assertTrue(panel.path("gridPos").path("w").asInt() > 0 && panel.path("gridPos").path("h").asInt() > 0, title + ": placed");
            assertTrue(panel.path("targets").size() > 0, title + ": has a query");
            Set<String> refIds = new HashSet<>();
            for (JsonNode t : panel.path("targets")) {
                assertTrue(refIds.add(t.path("refId").asText()), title + ": unique refIds");
                assertFalse(t.path("expr").asText().isBlank(), title + ": non-empty query");
                assertTrue(t.path("expr").asText().contains("job_name=~\"$job\""), title + ": filtered by the job variable");
            }
        }
        assertTrue(ids.size() >= 12, "one panel per metric family");
        List<String> variables = new ArrayList<>();
        dashboard.path("templating").path("list").forEach(v -> variables.add(v.path("name").asText()));
        assertEquals(List.of("datasource", "job"), variables);
    }

    private List<String> panelQueries() {
        List<String> exprs = new ArrayList<>();
        dashboard.path("panels").forEach(p -> p.path("targets").forEach(t -> exprs.add(t.path("expr").asText())));
        return exprs;
    }

    private List<String> queries() {
        List<String> exprs = panelQueries();
        dashboard.path("annotations").path("list").forEach(a -> exprs.add(a.path("expr").asText()));
        dashboard.path("templating").path("list").forEach(v -> exprs.add(v.path("query").asText()));
        return exprs;
    }

    static Set<String> documentedNames() throws Exception {
        Set<String> names = new HashSet<>();
        boolean inSection = false;
        for (String line : Files.readAllLines(METRICS_MD)) {
            if (line.startsWith("## ")) {
                inSection = line.startsWith("## Prometheus names");
            }
            Matcher m = DOCUMENTED_ROW.matcher(line);
            if (inSection && m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}
