package io.streamtrain.report;

import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.train.worker.ProgressiveValidation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run drawn from its metrics topic alone (docs/metrics.md, "The metrics topic"): per-second
 * series of examples/s, consumer lag, window AUC/logloss and staleness, and the markers a reader
 * looks for. The rules, one place for every view of a run:
 * <ul>
 *   <li>examples/s: each worker subtask attempt's growth of {@code examples} between its records,
 *       summed over subtasks;</li>
 *   <li>AUC/logloss: the workers' latest windows, weighted by window size;</li>
 *   <li>lag: Σ over batcher subtasks of their latest {@code lag}; staleness p50/p99: the highest
 *       PS subtask's latest value;</li>
 *   <li>markers: a checkpoint where the highest {@code completed_checkpoint} grows; a rescale where
 *       {@code parallelism} changes; a recovery where a worker attempt restored a checkpoint at the
 *       same parallelism.</li>
 * </ul>
 */
public final class RunTimeline {
    /** One second of the run; NaN where nothing was reported. */
    /** {@code baseLogloss}: the constant predictor's at the windows' positive rate (NaN if unknown). */
    public record Point(long second, double examplesPerSecond, double lag, double auc, double logloss, double baseLogloss,
                        double stalenessP50Ms, double stalenessP99Ms) {}

    public enum Kind { CHECKPOINT, RESCALE, RECOVERY }

    public record Marker(long second, Kind kind, String label) {}

    private final long startMs;
    private final List<Point> points;
    private final List<Marker> markers;
    private final long examples;

    private RunTimeline(long startMs, List<Point> points, List<Marker> markers, long examples) {
        this.startMs = startMs;
        this.points = points;
        this.markers = markers;
        this.examples = examples;
    }

    public static RunTimeline of(List<TrainingMetrics> records) {
        List<TrainingMetrics> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.comparing(TrainingMetrics::getTime));
        if (sorted.isEmpty()) {
            return new RunTimeline(0, List.of(), List.of(), 0);
        }
        long start = sorted.get(0).getTime().toEpochMilli();
        TreeMap<Long, List<TrainingMetrics>> bySecond = new TreeMap<>();
        for (TrainingMetrics m : sorted) {
            bySecond.computeIfAbsent((m.getTime().toEpochMilli() - start) / 1000, s -> new ArrayList<>()).add(m);
        }
        Map<Integer, TrainingMetrics> lastWorker = new HashMap<>(); // by subtask
        Map<String, Long> examplesSeen = new HashMap<>();          // by subtask/attempt
        Map<Integer, Long> lagBySubtask = new HashMap<>();
        Map<Integer, double[]> stalenessBySubtask = new HashMap<>();
        List<Point> points = new ArrayList<>();
        List<Marker> markers = new ArrayList<>();
        long lastCheckpoint = -1;
        int lastParallelism = -1;
        long lastChangeSecond = -1; // of the last rescale or recovery: one marker a second
        Map<Integer, Integer> lastAttempt = new HashMap<>();
        long examples = 0;
        for (Map.Entry<Long, List<TrainingMetrics>> e : bySecond.entrySet()) {
            long second = e.getKey();
            double trained = 0;
            for (TrainingMetrics m : e.getValue()) {
                if (m.getParallelism() > 0 && lastParallelism > 0 && m.getParallelism() != lastParallelism) {
                    markers.add(new Marker(second, Kind.RESCALE, "parallelism " + lastParallelism + " → " + m.getParallelism()));
                    lastChangeSecond = second;
                }
                if (m.getParallelism() > 0) {
                    lastParallelism = m.getParallelism();
                }
                if (m.getCompletedCheckpoint() > lastCheckpoint) {
                    if (lastCheckpoint >= 0 || m.getCompletedCheckpoint() > 0) {
                        markers.add(new Marker(second, Kind.CHECKPOINT, "checkpoint " + m.getCompletedCheckpoint()));
                    }
                    lastCheckpoint = m.getCompletedCheckpoint();
                }
                switch (m.getOperator()) {
                    case "worker" -> {
                        String attemptKey = m.getSubtask() + "/" + m.getAttempt();
                        long before = examplesSeen.getOrDefault(attemptKey, 0L);
                        long grown = Math.max(0, m.getExamples() - before);
                        trained += grown;
                        examples += grown;
                        examplesSeen.put(attemptKey, Math.max(before, m.getExamples()));
                        Integer previous = lastAttempt.put(m.getSubtask(), m.getAttempt());
                        if (previous != null && m.getAttempt() > previous && m.getRestoredCheckpoint() >= 0
                                && m.getParallelism() == lastParallelism && lastChangeSecond != second) {
                            markers.add(new Marker(second, Kind.RECOVERY, "restored checkpoint " + m.getRestoredCheckpoint()));
                            lastChangeSecond = second;
                        }
                        lastWorker.put(m.getSubtask(), m);
                    }
                    case "batcher" -> lagBySubtask.put(m.getSubtask(), m.getLag());
                    case "ps" -> stalenessBySubtask.put(m.getSubtask(), new double[] {
                            orNaN(m.getStalenessP50Ms()), orNaN(m.getStalenessP99Ms())});
                    default -> { } // an operator this version does not know: ignore it
                }
            }
            double windowed = 0;
            double auc = 0;
            double logloss = 0;
            long positives = 0;
            for (TrainingMetrics w : lastWorker.values()) {
                if (w.getWindowExamples() > 0 && Double.isFinite(w.getWindowAuc())) {
                    windowed += w.getWindowExamples();
                    positives = positives < 0 || w.getWindowPositives() < 0 ? -1 : positives + w.getWindowPositives();
                    auc += w.getWindowAuc() * w.getWindowExamples();
                    logloss += w.getWindowLogloss() * w.getWindowExamples();
                }
            }
            double lag = lagBySubtask.isEmpty() ? Double.NaN
                    : lagBySubtask.values().stream().filter(l -> l >= 0).mapToLong(Long::longValue).sum();
            double p50 = stalenessBySubtask.values().stream().mapToDouble(v -> v[0]).max().orElse(Double.NaN);
            double p99 = stalenessBySubtask.values().stream().mapToDouble(v -> v[1]).max().orElse(Double.NaN);
            points.add(new Point(second, trained, lag, windowed > 0 ? auc / windowed : Double.NaN,
                    windowed > 0 ? logloss / windowed : Double.NaN, ProgressiveValidation.baseLogloss(positives, (long) windowed), p50, p99));
        }
        return new RunTimeline(start, points, markers, examples);
    }

    private static double orNaN(Double d) {
        return d == null ? Double.NaN : d;
    }

    public long startMs() {
        return startMs;
    }

    public List<Point> points() {
        return points;
    }

    public List<Marker> markers() {
        return markers;
    }

    /** Examples trained over the whole run, restarts counted once per attempt's growth. */
    public long examples() {
        return examples;
    }

    public long seconds() {
        return points.isEmpty() ? 0 : points.get(points.size() - 1).second() + 1;
    }

    public long count(Kind kind) {
        return markers.stream().filter(m -> m.kind() == kind).count();
    }

    /**
     * Mean examples/s over the {@code n} seconds before the newest one (which a live run may still
     * be filling); NaN before two seconds of metrics.
     */
    public double recentRate(int n) {
        int end = points.size() - 1;
        int begin = Math.max(0, end - n);
        if (end <= begin) {
            return Double.NaN;
        }
        long span = points.get(end).second() - points.get(begin).second();
        double sum = 0;
        for (int i = begin; i < end; i++) {
            sum += points.get(i).examplesPerSecond();
        }
        return sum / span;
    }

    /** The last reported value of a series, NaN if never reported. */
    public double last(java.util.function.ToDoubleFunction<Point> series) {
        for (int i = points.size() - 1; i >= 0; i--) {
            double v = series.applyAsDouble(points.get(i));
            if (!Double.isNaN(v)) {
                return v;
            }
        }
        return Double.NaN;
    }
}
