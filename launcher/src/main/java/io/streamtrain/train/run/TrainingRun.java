package io.streamtrain.train.run;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.export.SourceOffsets;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaOutage;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.RequiredFlinkSettings;
import io.streamtrain.train.TrainingJob;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.export.CheckpointFiles;
import java.io.IOException;
import io.streamtrain.train.worker.ProgressiveValidation;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs the training job on a local Flink (in this JVM) or on a local reactive cluster: resumes from the newest retained checkpoint in
 * the checkpoint directory if there is one, prints progress, and with {@code untilIdle} stops once
 * every record has been trained and every gradient applied in a completed checkpoint. Progress and
 * the summary come from the run's own checkpoints ({@link CheckpointedProgress}); a run that
 * completed none, or whose job ended, fails instead of returning a summary.
 */
public final class TrainingRun {

    public record Settings(
            Configuration conf,
            Path checkpointDir,
            int parallelism,
            Duration checkpointInterval,
            Duration untilIdle,
            boolean resume,
            PrintStream progress,
            Path cluster,
            Path initialSavepoint,
            SessionTarget session) {
        /** A run on a local Flink (MiniCluster) in this JVM. */
        public Settings(Configuration conf, Path checkpointDir, int parallelism, Duration checkpointInterval,
                        Duration untilIdle, boolean resume, PrintStream progress) {
            this(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, resume, progress, null, null, null);
        }

        /** The same run on the local cluster in {@code clusterDir}, whose TaskManagers decide the parallelism. */
        public Settings onCluster(Path clusterDir) {
            return new Settings(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, resume, progress, clusterDir, initialSavepoint, null);
        }

        /** The same run submitted to an existing session cluster ({@code --jobmanager}). */
        public Settings onSession(SessionTarget target) {
            return new Settings(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, resume, progress, null, initialSavepoint, target);
        }

        /** Where the job runs: a session cluster, the local cluster in {@link #cluster}, or a Flink in this JVM. */
        TrainingCluster openCluster(Configuration job, FlinkApplication application) throws Exception {
            if (session != null) {
                return new SessionJob(session, application, progress);
            }
            if (cluster != null) {
                if (application != FlinkApplication.TRAINING) {
                    throw new IllegalArgumentException("a local reactive cluster (--cluster) runs the training job only; use --jobmanager");
                }
                return new StandaloneTraining(LocalCluster.open(cluster), progress);
            }
            return new LocalFlink(job, parallelism, application);
        }

        /**
         * The same run, started from {@code savepoint} (a backfill's output, or any savepoint or
         * checkpoint) when the checkpoint directory holds no retained checkpoint yet — the
         * operator's initialSavepointPath; later runs resume from their own checkpoints.
         */
        public Settings fromSavepoint(Path savepoint) {
            return new Settings(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, resume, progress, cluster, savepoint, session);
        }
    }

    private TrainingRun() {}

    /** The Flink configuration of a run: the job's own needs plus this run's checkpoint settings and parallelism. */
    public static Configuration flinkConfiguration(Settings s) {
        Configuration c = new Configuration(s.conf());
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, s.checkpointInterval());
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, ModelStorage.uri(s.checkpointDir()).toString());
        // Small network buffers keep few batches in flight between batcher, PS and worker, which
        // bounds gradient staleness when the job works through a backlog.
        if (!c.contains(TaskManagerOptions.MEMORY_SEGMENT_SIZE)) {
            c.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("4kb"));
            c.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        }
        // The REST API serves job metrics (restarts, PS staleness) from a cache refreshed this often
        // (Flink's default: 10 s); a run's summary reads them right after its input is trained.
        if (!c.contains(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL)) {
            c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofSeconds(1));
        }
        c.set(CoreOptions.DEFAULT_PARALLELISM, s.parallelism());
        return RequiredFlinkSettings.apply(c);
    }

    public static TrainingSummary run(Settings s) throws Exception {
        Configuration conf = flinkConfiguration(s);
        KafkaConnection connection = TrainingOptions.kafka(conf);
        String topic = conf.get(TrainingOptions.TOPIC);
        String feedbackTopic = TrainingOptions.feedbackTopic(conf);
        String metricsTopic = TrainingOptions.metricsTopic(conf);
        String deadLetterTopic = TrainingOptions.deadLetterTopic(conf);
        PrintStream out = s.progress();
        if (Files.exists(s.checkpointDir()) && !Files.isDirectory(s.checkpointDir())) {
            throw new IllegalArgumentException("checkpoint directory " + s.checkpointDir().toAbsolutePath()
                    + " is a file, not a directory: give --checkpoint-dir a directory (it is created if missing)");
        }

        KafkaPreflight.check(connection);
        try (KafkaProgress kafka = new KafkaProgress(connection)) {
            kafka.ensureTopics(Map.of(topic, 4));
            kafka.ensureJobTopics(conf);

            Optional<Path> resumeFrom = s.resume() ? LatestCheckpoint.find(s.checkpointDir()) : Optional.empty();
            Optional<Handover> handover = Optional.empty();
            if (resumeFrom.isEmpty() && s.initialSavepoint() != null) {
                resumeFrom = Optional.of(Handover.savepointIn(s.initialSavepoint()));
                handover = handoverFor(s.initialSavepoint(), resumeFrom.get(), topic);
            }
            if (resumeFrom.isPresent()) {
                verifyRestorable(resumeFrom.get(), s.checkpointDir());
            }
            Map<TopicPartition, Long> examplesFrom;
            if (handover.isPresent()) {
                // The backfill's source state is not this job's: start where its range ended.
                conf.set(TrainingOptions.START_OFFSETS, TrainingOptions.offsetPairs(handover.get().offsets()));
                conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
                examplesFrom = new BackfillRange(topic, handover.get().offsets(), handover.get().offsets()).fromOffsets();
            } else if (resumeFrom.isPresent()) {
                examplesFrom = withFloor(SourceOffsets.of(resumeFrom.get(), TrainingJob.EXAMPLES_SOURCE_UID), kafka.startOffsets(topic));
            } else {
                examplesFrom = freshStart(kafka, conf, topic);
            }
            Map<TopicPartition, Long> feedbackFrom = kafka.endOffsets(feedbackTopic);
            // A restored feedback source goes on from its checkpoint: pushes written after it are still to apply.
            Map<TopicPartition, Long> feedbackProgressFrom = resumeFrom.isPresent()
                    ? withFloor(SourceOffsets.of(resumeFrom.get(), TrainingJob.FEEDBACK_SOURCE_UID), feedbackFrom)
                    : feedbackFrom;
            Map<TopicPartition, Long> deadLettersFrom = kafka.endOffsets(deadLetterTopic);

            Duration idle = effectiveIdle(s, conf);
            try (TrainingCluster flink = s.openCluster(conf, FlinkApplication.TRAINING);
                    MetricsFollower metrics = new MetricsFollower(connection, metricsTopic, kafka.endOffsets(metricsTopic))) {
                out.println("train: " + (resumeFrom.map(p -> "resuming from " + ModelStorage.location(p)).orElse("fresh start"))
                        + ", topic " + topic + ", checkpoints in " + ModelStorage.uri(s.checkpointDir()));
                flink.start(conf, resumeFrom, feedbackFrom);
                out.println("train: job " + flink.job() + " on " + flink.describe() + "; Flink REST API at " + flink.restAddress());
                KafkaOutage outage = new KafkaOutage("train", conf.get(TrainingOptions.KAFKA_OUTAGE_PATIENCE));
                ProgressWatch watch = new ProgressWatch(kafka, s.checkpointDir(), TrainingJob.examplesSourceUid(conf), topic, feedbackTopic,
                        examplesFrom, feedbackProgressFrom, () -> kafka.endOffsets(topic), outage);
                long started = System.nanoTime();
                Thread main = Thread.currentThread();
                Thread hook = new Thread(main::interrupt);
                Runtime.getRuntime().addShutdownHook(hook);
                try {
                    watch.awaitDone(flink, "training", out, seconds -> progressLine(watch, metrics, flink, seconds),
                            () -> idle != null && watch.quietFor().compareTo(idle) >= 0);
                } catch (InterruptedException | org.apache.kafka.common.errors.InterruptException e) {
                    Thread.interrupted(); // Kafka's InterruptException leaves the flag set; the shutdown below must not be interrupted
                    out.println("train: interrupted, stopping (the latest checkpoint is kept)");
                } finally {
                    try {
                        Runtime.getRuntime().removeShutdownHook(hook);
                    } catch (IllegalStateException shuttingDown) {
                        // JVM is exiting; nothing to remove
                    }
                }
                JobMonitor.Checkpoints cps;
                long restarts;
                LoopReadings loop;
                try (JobMonitor monitor = flink.monitor()) {
                    cps = monitor.checkpoints();
                    restarts = monitor.restarts() + flink.jobManagerRecoveries();
                    loop = LoopReadings.of(monitor);
                }
                flink.cancel();
                if (watch.checkpointsRead() == 0 && cps.completed() == 0) {
                    throw new IllegalStateException("the run completed no checkpoint, so nothing it trained is kept"
                            + (restarts > 0 ? " (the job restarted " + restarts + " times)" : ""));
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                double[] window = metrics.window();
                long deadLetters = outage.retry("counting dead letters",
                        () -> KafkaProgress.countCommittedRecords(connection, deadLetterTopic, deadLettersFrom));
                TrainingSummary summary = new TrainingSummary(watch.exactRecords(), watch.steadyRate(),
                        window[0], window[1], window[2], cps.completed(), restarts, loop.stalenessP99Ms(), loop.stalenessP50Ms(), deadLetters, loop.creditWaitMs(), loop.creditWaitsRunOut(), seconds,
                        cps.latestPath(), cps.latestDurationMs(), cps.latestSizeBytes(), watch.steadyCpuMicrosPerExample(),
                        watch.steadyStalenessMs(0.5), watch.steadyStalenessMs(0.99));
                if (!summary.warning().isEmpty()) {
                    out.println("train: " + summary.warning());
                }
                return summary;
            }
        }
    }

    /**
     * Fails the run before the job starts when the checkpoint to restore is damaged: restored, it
     * would fail each restart the same way, with the file rarely named.
     */
    private static void verifyRestorable(Path checkpoint, Path checkpointDir) throws IOException {
        try {
            CheckpointFiles.verify(checkpoint);
        } catch (CheckpointFiles.DamagedCheckpointException e) {
            String older = LatestCheckpoint.olderThan(checkpointDir, checkpoint).map(Path::toString).orElse("PATH");
            throw new IOException(e.getMessage() + "; start from an older checkpoint with --from-checkpoint " + older
                    + ", from a savepoint with --from-savepoint PATH, or afresh with --no-resume", e);
        }
    }

    /** The backfill hand-over that goes with restoring {@code savepoint}, if it is a backfill's. */
    private static Optional<Handover> handoverFor(Path given, Path savepoint, String topic) throws Exception {
        Optional<Handover> h = Handover.find(given);
        if (h.isEmpty() || !ModelStorage.uri(ModelStorage.local(h.get().savepoint())).equals(ModelStorage.uri(savepoint))) {
            return Optional.empty();
        }
        if (!h.get().topic().equals(topic)) {
            throw new IllegalArgumentException("savepoint " + savepoint + " is a backfill of topic " + h.get().topic() + ", not " + topic);
        }
        return h;
    }

    /** Quiet must outlast an idle batch's wait, the checkpoint that seals it and the one that commits its pushes. */
    static Duration quietFloor(Configuration conf, Duration checkpointInterval) {
        return conf.get(TrainingOptions.MAX_WAIT).plus(checkpointInterval.multipliedBy(3)).plusSeconds(1);
    }

    private static Duration effectiveIdle(Settings s, Configuration conf) {
        if (s.untilIdle() == null) {
            return null;
        }
        Duration floor = quietFloor(conf, s.checkpointInterval());
        if (s.untilIdle().compareTo(floor) < 0) {
            s.progress().println("train: --until-idle raised to " + floor.toMillis() / 1000.0 + " s (max-wait + 3 checkpoint intervals + 1 s)");
            return floor;
        }
        return s.untilIdle();
    }

    private static Map<TopicPartition, Long> freshStart(KafkaProgress kafka, Configuration conf, String topic) throws Exception {
        return switch (conf.get(TrainingOptions.START_FROM)) {
            case LATEST -> kafka.endOffsets(topic);
            case COMMITTED -> withFloor(kafka.committed(TrainingOptions.examplesGroup(conf), topic), kafka.startOffsets(topic));
            case EARLIEST -> kafka.startOffsets(topic);
        };
    }

    private static Map<TopicPartition, Long> withFloor(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> floor) {
        Map<TopicPartition, Long> result = new HashMap<>(floor);
        result.putAll(offsets);
        return result;
    }

    private static String progressLine(ProgressWatch w, MetricsFollower metrics, TrainingCluster flink, double seconds) {
        double[] window = metrics.window();
        long checkpoints = -1;
        long restarts = -1;
        int parallelism = -1;
        try (JobMonitor monitor = flink.monitor()) {
            // Not while the JobManager initializes the job: asking then for its checkpoint statistics
            // makes Flink log an ERROR with a stack trace.
            if (monitor.state().filter(s -> s != JobStatus.INITIALIZING).isPresent()) {
                checkpoints = monitor.checkpoints().completed();
                restarts = monitor.restarts() + flink.jobManagerRecoveries();
                parallelism = monitor.parallelism();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the run is being stopped: the next sleep says so
        } catch (Exception e) {
            // REST not ready yet; show -1
        }
        return String.format(Locale.ROOT,
                "train: t=%.0fs records=%d rate=%.0f/s lag=%d feedback_lag=%d window_auc=%.4f window_logloss=%.4f"
                        + " base_logloss=%.4f checkpoints=%d restarts=%d parallelism=%d%s%s",
                seconds, w.records(), w.records() / Math.max(1e-3, w.activeSeconds()), w.lag(), w.feedbackLag(),
                window[0], window[1], window[2], checkpoints, restarts, parallelism,
                ProgressiveValidation.worseThanBaseRate(window[1], window[2]).isEmpty() ? "" : " warning=worse_than_base_rate",
                w.kafkaNote());
    }
}
