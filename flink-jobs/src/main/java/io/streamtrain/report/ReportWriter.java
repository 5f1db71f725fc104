package io.streamtrain.report;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A self-contained HTML report of a run: one inline SVG chart per series with the run's markers
 * (no scripts, no external assets, so it opens anywhere and can be attached to a review), and a
 * summary table.
 */
public final class ReportWriter {
    private static final int WIDTH = 760;
    private static final int HEIGHT = 170;
    private static final int PAD = 40;

    private record Series(String title, String unit, ToDoubleFunction<RunTimeline.Point> value) {}

    private static final List<Series> SERIES = List.of(
            new Series("examples/s", "examples/s", RunTimeline.Point::examplesPerSecond),
            new Series("consumer lag", "records", RunTimeline.Point::lag),
            new Series("window AUC", "AUC", RunTimeline.Point::auc),
            new Series("window logloss", "nats", RunTimeline.Point::logloss),
            new Series("gradient staleness p99", "ms", RunTimeline.Point::stalenessP99Ms));

    private ReportWriter() {}

    public static String html(String title, RunTimeline run) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(escape(title)).append("</title>\n")
                .append("<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}th{text-align:left}"
                        + ".checkpoint{stroke:#9ab}.rescale{stroke:#d80}.recovery{stroke:#c00}</style></head><body>\n")
                .append("<h1>").append(escape(title)).append("</h1>\n")
                .append("<p>Run started ").append(Instant.ofEpochMilli(run.startMs())).append(", ")
                .append(run.seconds()).append(" s of metrics. Markers: grey checkpoint, orange rescale, red recovery.</p>\n");
        summary(b, run);
        for (Series s : SERIES) {
            chart(b, run, s);
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    private static void summary(StringBuilder b, RunTimeline run) {
        b.append("<table id=\"summary\">\n");
        row(b, "examples trained", Long.toString(run.examples()));
        row(b, "seconds", Long.toString(run.seconds()));
        row(b, "last window AUC", num(run.last(RunTimeline.Point::auc), 4));
        row(b, "last window logloss", num(run.last(RunTimeline.Point::logloss), 4));
        row(b, "last staleness p99 ms", num(run.last(RunTimeline.Point::stalenessP99Ms), 0));
        row(b, "checkpoints", Long.toString(run.count(RunTimeline.Kind.CHECKPOINT)));
        row(b, "rescales", Long.toString(run.count(RunTimeline.Kind.RESCALE)));
        row(b, "recoveries", Long.toString(run.count(RunTimeline.Kind.RECOVERY)));
        b.append("</table>\n");
    }

    private static void row(StringBuilder b, String name, String value) {
        b.append("<tr><th>").append(name).append("</th><td>").append(value).append("</td></tr>\n");
    }

    private static void chart(StringBuilder b, RunTimeline run, Series s) {
        double max = run.points().stream().mapToDouble(s.value()).filter(Double::isFinite).max().orElse(Double.NaN);
        double min = run.points().stream().mapToDouble(s.value()).filter(Double::isFinite).min().orElse(Double.NaN);
        b.append("<h2>").append(s.title()).append("</h2>\n");
        if (Double.isNaN(max)) {
            b.append("<p>not reported</p>\n");
            return;
        }
        double lo = Math.min(0, min);
        double span = max > lo ? max - lo : 1;
        double seconds = Math.max(1, run.seconds() - 1);
        b.append(String.format(Locale.ROOT, "<svg width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">\n",
                WIDTH, HEIGHT, escape(s.title())));
        for (RunTimeline.Marker m : run.markers()) {
            double x = PAD + (WIDTH - 2 * PAD) * m.second() / seconds;
            b.append(String.format(Locale.ROOT, "<line class=\"%s\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\"><title>%s</title></line>\n",
                    m.kind().name().toLowerCase(Locale.ROOT), x, x, HEIGHT - 20, escape(m.label())));
        }
        b.append("<polyline fill=\"none\" stroke=\"#1565c0\" stroke-width=\"1.5\" points=\"");
        for (RunTimeline.Point p : run.points()) {
            double v = s.value().applyAsDouble(p);
            if (Double.isFinite(v)) {
                double x = PAD + (WIDTH - 2 * PAD) * p.second() / seconds;
                double y = (HEIGHT - 20) - (HEIGHT - 30) * (v - lo) / span;
                b.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
        }
        b.append("\"/>\n");
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"14\" font-size=\"11\">%s %s</text>", num(max, 3), s.unit()));
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"%d\" font-size=\"11\">%s</text>", HEIGHT - 20, num(lo, 3)));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%d s</text>\n</svg>\n",
                WIDTH - PAD, HEIGHT - 4, run.seconds()));
    }

    private static String num(double v, int decimals) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
