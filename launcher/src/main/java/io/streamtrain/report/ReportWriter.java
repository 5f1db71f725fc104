package io.streamtrain.report;

import io.streamtrain.files.OutputFile;
import io.streamtrain.train.worker.ProgressiveValidation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

    /** One curve of a run; {@code key} names it in file names and in the dashboard's JSON and DOM. */
    public record Series(String key, String title, String unit, ToDoubleFunction<RunTimeline.Point> value) {}

    /** The curves every view of a run draws (report, SVG files, live dashboard), in this order. */
    public static final List<Series> SERIES = List.of(
            new Series("examples-per-second", "examples/s", "examples/s", RunTimeline.Point::examplesPerSecond),
            new Series("lag", "consumer lag", "records", RunTimeline.Point::lag),
            new Series("auc", "window AUC", "AUC", RunTimeline.Point::auc),
            new Series("logloss", "window logloss", "nats", RunTimeline.Point::logloss),
            new Series("staleness-p99", "gradient staleness p99", "ms", RunTimeline.Point::stalenessP99Ms));

    /** Marker colours by kind; the dashboard page gets them from its JSON. */
    private static final Map<RunTimeline.Kind, String> MARKER_COLOURS = Map.of(
            RunTimeline.Kind.CHECKPOINT, "#9ab", RunTimeline.Kind.RESCALE, "#d80", RunTimeline.Kind.RECOVERY, "#c00");

    private ReportWriter() {}

    public static String html(String title, RunTimeline run) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(escape(title)).append("</title>\n")
                .append("<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}th{text-align:left}</style></head><body>\n")
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
        row(b, "last base-rate logloss", num(run.last(RunTimeline.Point::baseLogloss), 4));
        String warning = ProgressiveValidation.worseThanBaseRate(
                run.last(RunTimeline.Point::logloss), run.last(RunTimeline.Point::baseLogloss));
        if (!warning.isEmpty()) {
            b.append("<tr><th>warning</th><td id=\"warning\" style=\"color:#c00\">").append(escape(warning)).append("</td></tr>\n");
        }
        row(b, "last staleness p99 ms", num(run.last(RunTimeline.Point::stalenessP99Ms), 0));
        row(b, "checkpoints", Long.toString(run.count(RunTimeline.Kind.CHECKPOINT)));
        row(b, "rescales", Long.toString(run.count(RunTimeline.Kind.RESCALE)));
        row(b, "recoveries", Long.toString(run.count(RunTimeline.Kind.RECOVERY)));
        b.append("</table>\n");
    }

    public static String markerColour(RunTimeline.Kind kind) {
        return MARKER_COLOURS.get(kind);
    }

    private static void row(StringBuilder b, String name, String value) {
        b.append("<tr><th>").append(name).append("</th><td>").append(value).append("</td></tr>\n");
    }

    private static void chart(StringBuilder b, RunTimeline run, Series s) {
        b.append("<h2>").append(s.title()).append("</h2>\n");
        b.append(hasValues(run, s) ? svg(run, s, false) : "<p>not reported</p>\n");
    }

    static boolean hasValues(RunTimeline run, Series s) {
        return run.points().stream().mapToDouble(s.value()).anyMatch(Double::isFinite);
    }

    /** One series as an SVG chart with the run's markers: a standalone document, or inline in HTML (no namespace). */
    static String svg(RunTimeline run, Series s, boolean standalone) {
        double max = run.points().stream().mapToDouble(s.value()).filter(Double::isFinite).max().orElse(Double.NaN);
        double min = run.points().stream().mapToDouble(s.value()).filter(Double::isFinite).min().orElse(Double.NaN);
        StringBuilder b = new StringBuilder();
        double lo = Double.isNaN(min) ? 0 : Math.min(0, min);
        double span = max > lo ? max - lo : 1;
        double seconds = Math.max(1, run.seconds() - 1);
        b.append(String.format(Locale.ROOT, "<svg%s width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">\n",
                standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", WIDTH, HEIGHT, escape(s.title())));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", WIDTH, HEIGHT));
        for (RunTimeline.Marker m : run.markers()) {
            double x = PAD + (WIDTH - 2 * PAD) * m.second() / seconds;
            b.append(String.format(Locale.ROOT, "<line class=\"%s\" stroke=\"%s\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\"><title>%s</title></line>\n",
                    m.kind().name().toLowerCase(Locale.ROOT), MARKER_COLOURS.get(m.kind()), x, x, HEIGHT - 20, escape(m.label())));
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
        if (standalone) { // in HTML the heading names the chart
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"14\" font-size=\"13\" font-family=\"sans-serif\" text-anchor=\"middle\">%s</text>",
                    WIDTH / 2, escape(s.title())));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"14\" font-size=\"11\" font-family=\"sans-serif\">%s %s</text>", axis(max), s.unit()));
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"%d\" font-size=\"11\" font-family=\"sans-serif\">%s</text>", HEIGHT - 20, axis(lo)));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" font-family=\"sans-serif\">%d s</text>\n</svg>\n",
                WIDTH - PAD, HEIGHT - 4, run.seconds()));
        return b.toString();
    }

    /**
     * Writes {@code <prefix>-<series key>.svg} into {@code dir} for every series the run reported,
     * for embedding in documents; returns the files written.
     */
    public static List<Path> writeSvgs(Path dir, String prefix, RunTimeline run) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (Series s : SERIES) {
            if (hasValues(run, s)) {
                Path file = dir.resolve(prefix + "-" + s.key() + ".svg");
                String content = svg(run, s, true);
                try {
                    // whole or not at all, like every output a command writes
                    OutputFile.write(file, temporary -> Files.writeString(temporary, content, StandardCharsets.UTF_8));
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException("could not write " + file + ": " + e.getMessage(), e);
                }
                written.add(file);
            }
        }
        return written;
    }

    /** An axis label: whole numbers from 100 up, three decimals below (AUC, logloss). */
    private static String axis(double v) {
        return num(v, Math.abs(v) >= 100 ? 0 : 3);
    }

    private static String num(double v, int decimals) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
