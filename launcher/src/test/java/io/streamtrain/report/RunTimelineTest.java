package io.streamtrain.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.schema.TrainingMetrics;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules that turn a run's metrics records into series and markers. */
class RunTimelineTest {
    static final long T0 = 1_700_000_000_000L;

    static TrainingMetrics worker(long ms, int subtask, int attempt, int parallelism, long examples, long window,
                                  double auc, double logloss, long restored, long completed) {
        return TrainingMetrics.newBuilder().setTime(Instant.ofEpochMilli(T0 + ms)).setSubtask(subtask).setAttempt(attempt)
                .setExamples(examples).setWindowExamples(window).setWindowAuc(auc).setWindowLogloss(logloss)
                .setOperator("worker").setParallelism(parallelism).setRestoredCheckpoint(restored)
                .setCompletedCheckpoint(completed).setStalenessP50Ms(null).setStalenessP99Ms(null).setLag(-1)
                .setWindowPositives(window / 5).build();
    }

    static TrainingMetrics other(String operator, long ms, int subtask, int parallelism, Double p99, long lag) {
        return TrainingMetrics.newBuilder().setTime(Instant.ofEpochMilli(T0 + ms)).setSubtask(subtask).setAttempt(0)
                .setExamples(0).setWindowExamples(0).setWindowAuc(Double.NaN).setWindowLogloss(Double.NaN)
                .setOperator(operator).setParallelism(parallelism).setRestoredCheckpoint(-1).setCompletedCheckpoint(-1)
                .setStalenessP50Ms(p99 == null ? null : p99 / 2).setStalenessP99Ms(p99).setLag(lag).build();
    }

    static List<TrainingMetrics> run() {
        return List.of(
                worker(0, 0, 0, 1, 0, 0, Double.NaN, Double.NaN, -1, -1),
                worker(1_000, 0, 0, 1, 1_000, 500, 0.70, 0.60, -1, 1),
                other("ps", 1_200, 0, 1, 120.0, -1),
                other("batcher", 1_300, 0, 1, null, 50),
                worker(2_000, 0, 0, 1, 2_500, 1_000, 0.72, 0.58, -1, 2),
                // rescale to 2: both subtasks restart from checkpoint 2
                worker(3_000, 0, 1, 2, 300, 300, 0.60, 0.70, 2, 2),
                worker(3_100, 1, 1, 2, 100, 100, 0.80, 0.50, 2, 3),
                // subtask 1 fails and restores checkpoint 3 at the same parallelism
                worker(4_000, 1, 2, 2, 40, 40, 0.80, 0.50, 3, 3),
                // records may arrive out of time order
                other("batcher", 900, 0, 1, null, 70));
    }

    @Test
    void ratesSumEachAttemptsGrowthAcrossSubtasks() {
        RunTimeline t = RunTimeline.of(run());
        assertEquals(5, t.seconds());
        assertEquals(List.of(0.0, 1_000.0, 1_500.0, 400.0, 40.0),
                t.points().stream().map(RunTimeline.Point::examplesPerSecond).toList());
        assertEquals(1_000 + 1_500 + 400 + 40, t.examples());
    }

    @Test
    void windowsAreWeightedBySizeAndLagAndStalenessTakeTheLatest() {
        RunTimeline.Point third = RunTimeline.of(run()).points().get(3);
        assertEquals((0.60 * 300 + 0.80 * 100) / 400, third.auc(), 1e-12);
        assertEquals((0.70 * 300 + 0.50 * 100) / 400, third.logloss(), 1e-12);
        RunTimeline.Point first = RunTimeline.of(run()).points().get(1);
        assertEquals(50, first.lag(), "the batcher's latest report");
        assertEquals(120, first.stalenessP99Ms());
        assertEquals(60, first.stalenessP50Ms());
        assertTrue(Double.isNaN(RunTimeline.of(run()).points().get(0).auc()), "no window yet");
    }

    @Test
    void baseLoglossIsTheConstantPredictorsAtTheWindowsPositiveRate() {
        RunTimeline.Point third = RunTimeline.of(run()).points().get(3);
        double rate = (300 / 5 + 100 / 5) / 400.0;
        assertEquals(-(rate * Math.log(rate) + (1 - rate) * Math.log(1 - rate)), third.baseLogloss(), 1e-12);
        TrainingMetrics firstVersion = worker(1_000, 0, 0, 1, 1_000, 500, 0.70, 0.60, -1, 1);
        firstVersion.setWindowPositives(-1L); // a record of the first schema version
        assertTrue(RunTimeline.of(List.of(firstVersion)).points().stream().allMatch(p -> Double.isNaN(p.baseLogloss())),
                "unknown without positives");
    }

    @Test
    void markersForCheckpointsRescalesAndRecoveries() {
        RunTimeline t = RunTimeline.of(run());
        assertEquals(3, t.count(RunTimeline.Kind.CHECKPOINT), "checkpoints 1, 2, 3: " + t.markers());
        assertEquals(List.of(3L), t.markers().stream().filter(m -> m.kind() == RunTimeline.Kind.RESCALE).map(RunTimeline.Marker::second).toList());
        assertEquals(List.of(4L), t.markers().stream().filter(m -> m.kind() == RunTimeline.Kind.RECOVERY).map(RunTimeline.Marker::second).toList(),
                "a rescale's restarts are not recoveries: " + t.markers());
    }
}
