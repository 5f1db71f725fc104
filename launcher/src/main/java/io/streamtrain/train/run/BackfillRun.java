package io.streamtrain.train.run;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.SourceOffsets;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaOutage;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.TrainingJob;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.worker.ProgressiveValidation;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.kafka.common.TopicPartition;

/**
 * Replays a bounded range of the training topic through the same training job (on a local Flink in
 * this JVM) into a fresh model or one restored from a savepoint, and ends with a savepoint that
 * {@code train --from-savepoint} continues from, plus its {@link Handover}.
 *
 * <p>"Done" is the until-idle rule of {@code train}, against the range's end instead of the
 * topic's: the source's offsets in the run's latest completed checkpoint reached the end of every
 * partition's range, every push in the feedback topic was applied in a completed checkpoint, and
 * nothing moved for max-wait + 3 checkpoint intervals (so the last, sealed batch of each partition
 * has been emitted, trained and applied). Only then is the job stopped with a savepoint.
 */
public final class BackfillRun {
    private static final Duration SAVEPOINT_TIMEOUT = Duration.ofMinutes(10);

    /**
     * @param training the job's settings; its checkpoint directory is ignored (checkpoints go to {@code outDir/checkpoints})
     * @param from the range's start; null: where {@code fromSavepoint}'s own backfill ended, else the earliest offsets
     * @param fromSavepoint a savepoint, checkpoint or backfill output to continue, or null for a fresh model
     * @param outDir where the savepoint, {@code model.json} and {@code handover.json} are written
     */
    public record Settings(TrainingRun.Settings training, BackfillRange.Bound from, BackfillRange.Bound to,
                           Path fromSavepoint, Path outDir) {}

    private BackfillRun() {}

    public static TrainingSummary run(Settings b) throws Exception {
        Path checkpoints = b.outDir().resolve("checkpoints");
        TrainingRun.Settings t = b.training();
        TrainingRun.Settings s = new TrainingRun.Settings(t.conf(), checkpoints, t.parallelism(), t.checkpointInterval(), null, false,
                t.progress(), null, null, t.session());
        Configuration conf = TrainingRun.flinkConfiguration(s);
        KafkaConnection connection = TrainingOptions.kafka(conf);
        String topic = conf.get(TrainingOptions.TOPIC);
        String feedbackTopic = TrainingOptions.feedbackTopic(conf);
        String metricsTopic = TrainingOptions.metricsTopic(conf);
        String deadLetterTopic = TrainingOptions.deadLetterTopic(conf);
        PrintStream out = s.progress();
        TrainingSummary summary;
        KafkaPreflight.check(connection);
        try (KafkaProgress kafka = new KafkaProgress(connection)) {
            if (!kafka.topicExists(topic)) {
                throw new IllegalArgumentException("topic " + topic + " does not exist: nothing to backfill");
            }
            kafka.ensureJobTopics(conf);
            Optional<Path> restore = Optional.empty();
            BackfillRange.Bound from = b.from();
            if (b.fromSavepoint() != null) {
                restore = Optional.of(Handover.savepointIn(b.fromSavepoint()));
                Optional<Handover> previous = Handover.find(b.fromSavepoint());
                if (from == null && previous.isPresent()) {
                    from = BackfillRange.Bound.ofOffsets(previous.get().offsets());
                }
                // The streaming source's state (or an earlier backfill's) is not this job's.
                conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
            }
            BackfillRange range = BackfillRange.resolve(kafka, topic, from == null ? BackfillRange.Bound.ofTime("earliest") : from, b.to());
            if (range.size() == 0) {
                throw new IllegalArgumentException("the range is empty: from " + range.from() + " to " + range.to());
            }
            conf.set(TrainingOptions.START_OFFSETS, TrainingOptions.offsetPairs(range.from()));
            conf.set(TrainingOptions.STOP_OFFSETS, TrainingOptions.offsetPairs(range.to()));
            Map<TopicPartition, Long> feedbackFrom = kafka.endOffsets(feedbackTopic);
            // A restored feedback source goes on from its savepoint: pushes written after it are still to apply.
            Map<TopicPartition, Long> feedbackProgressFrom = new HashMap<>(feedbackFrom);
            if (restore.isPresent()) {
                feedbackProgressFrom.putAll(SourceOffsets.of(restore.get(), TrainingJob.FEEDBACK_SOURCE_UID));
            }
            Map<TopicPartition, Long> deadLettersFrom = kafka.endOffsets(deadLetterTopic);
            Duration quiet = TrainingRun.quietFloor(conf, s.checkpointInterval());

            try (TrainingCluster flink = s.openCluster(conf, FlinkApplication.BACKFILL);
                    MetricsFollower metrics = new MetricsFollower(connection, metricsTopic, kafka.endOffsets(metricsTopic))) {
                out.println("backfill: " + topic + " offsets " + range.from() + " to " + range.to() + " (" + range.size()
                        + " offsets), " + restore.map(p -> "continuing " + ModelStorage.location(p)).orElse("fresh model"));
                flink.start(conf, restore, feedbackFrom);
                out.println("backfill: job " + flink.job() + " on " + flink.describe() + "; Flink REST API at " + flink.restAddress());
                KafkaOutage outage = new KafkaOutage("backfill", conf.get(TrainingOptions.KAFKA_OUTAGE_PATIENCE));
                ProgressWatch watch = new ProgressWatch(kafka, checkpoints, TrainingJob.examplesSourceUid(conf), topic, feedbackTopic,
                        range.fromOffsets(), feedbackProgressFrom, range::toOffsets, outage);
                long started = System.nanoTime();
                watch.awaitDone(flink, "backfill", out, seconds -> progressLine(watch, range, metrics, seconds),
                        () -> watch.lag() == 0 && watch.feedbackLag() == 0 && watch.quietFor().compareTo(quiet) >= 0);
                JobMonitor.Checkpoints cps;
                long restarts;
                LoopReadings loop;
                Path savepoint;
                try (JobMonitor monitor = flink.monitor()) {
                    cps = monitor.checkpoints();
                    restarts = monitor.restarts();
                    loop = LoopReadings.of(monitor);
                    out.println("backfill: range done, stopping with a savepoint in " + ModelStorage.location(b.outDir()));
                    savepoint = ModelStorage.local(monitor.stopWithSavepoint(b.outDir(), SAVEPOINT_TIMEOUT));
                }
                while (!flink.status().isGloballyTerminalState()) {
                    Thread.sleep(100);
                }
                new Handover(topic, ModelStorage.location(savepoint), range.to()).write(b.outDir());
                // The job wrote what export needs beside its checkpoints, which go below: it stays beside the savepoint.
                ModelStorage.copy(checkpoints.resolve(ModelInfo.FILE), b.outDir().resolve(ModelInfo.FILE));
                double seconds = (System.nanoTime() - started) / 1e9;
                double[] window = metrics.window();
                long deadLetters = outage.retry("counting dead letters",
                        () -> KafkaProgress.countCommittedRecords(connection, deadLetterTopic, deadLettersFrom));
                summary = new TrainingSummary(watch.exactRecords(), watch.steadyRate(), window[0], window[1], window[2], cps.completed(), restarts,
                        loop.stalenessP99Ms(), loop.stalenessP50Ms(), deadLetters, loop.creditWaitMs(), loop.creditWaitsRunOut(), seconds, savepoint.toString(), cps.latestDurationMs(), cps.latestSizeBytes(),
                        watch.steadyCpuMicrosPerExample(),
                        watch.steadyStalenessMs(0.5), watch.steadyStalenessMs(0.99));
            }
        }
        if (summary != null && !summary.warning().isEmpty()) {
            out.println("backfill: " + summary.warning());
        }
        // The savepoint is self-contained; the run's checkpoints go once Flink has stopped using them.
        ModelStorage.deleteRecursively(checkpoints);
        return summary;
    }

    private static String progressLine(ProgressWatch w, BackfillRange range, MetricsFollower metrics, double seconds) {
        long total = range.size();
        long done = w.records();
        double rate = done / Math.max(1e-3, w.activeSeconds());
        double eta = rate > 0 ? (total - done) / rate : Double.NaN;
        double[] window = metrics.window();
        return String.format(Locale.ROOT,
                "backfill: t=%.0fs done=%d/%d (%.1f%%) rate=%.0f/s eta=%s feedback_lag=%d window_auc=%.4f window_logloss=%.4f base_logloss=%.4f%s%s",
                seconds, done, total, 100.0 * done / Math.max(1, total), rate,
                Double.isNaN(eta) ? "?" : String.format(Locale.ROOT, "%.0fs", eta), w.feedbackLag(), window[0], window[1], window[2],
                ProgressiveValidation.worseThanBaseRate(window[1], window[2]).isEmpty() ? "" : " warning=worse_than_base_rate",
                w.kafkaNote());
    }

}
