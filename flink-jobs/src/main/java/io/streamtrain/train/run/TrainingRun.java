package io.streamtrain.train.run;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.export.LatestCheckpoint;
import io.streamtrain.export.ModelInfo;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.train.TrainingJob;
import io.streamtrain.train.TrainingOptions;
import java.io.PrintStream;
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
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs the training job on a local Flink (in this JVM) or on a local reactive cluster: resumes from the newest retained checkpoint in
 * the checkpoint directory if there is one, prints progress, and with {@code untilIdle} stops once
 * every record has been trained and every gradient applied in a completed checkpoint.
 */
public final class TrainingRun {
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

    public record Settings(
            Configuration conf,
            Path checkpointDir,
            int parallelism,
            Duration checkpointInterval,
            Duration untilIdle,
            boolean resume,
            PrintStream progress,
            Path cluster) {
        /** A run on a local Flink (MiniCluster) in this JVM. */
        public Settings(Configuration conf, Path checkpointDir, int parallelism, Duration checkpointInterval,
                        Duration untilIdle, boolean resume, PrintStream progress) {
            this(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, resume, progress, null);
        }

        /** The same run on the local cluster in {@code clusterDir}, whose TaskManagers decide the parallelism. */
        public Settings onCluster(Path clusterDir) {
            return new Settings(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, resume, progress, clusterDir);
        }
    }

    private TrainingRun() {}

    /** The Flink configuration of a run: the job's own needs plus this run's checkpoint settings and parallelism. */
    public static Configuration flinkConfiguration(Settings s) {
        Configuration c = new Configuration(s.conf());
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, s.checkpointInterval());
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, s.checkpointDir().toAbsolutePath().toUri().toString());
        // Small network buffers keep few batches in flight between batcher, PS and worker, which
        // bounds gradient staleness when the job works through a backlog.
        if (!c.contains(TaskManagerOptions.MEMORY_SEGMENT_SIZE)) {
            c.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("4kb"));
            c.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        }
        c.set(CoreOptions.DEFAULT_PARALLELISM, s.parallelism());
        return TrainingJob.withRequiredSettings(c);
    }

    public static TrainingSummary run(Settings s) throws Exception {
        Configuration conf = flinkConfiguration(s);
        String bootstrap = conf.get(TrainingOptions.BOOTSTRAP);
        String topic = conf.get(TrainingOptions.TOPIC);
        String feedbackTopic = TrainingOptions.feedbackTopic(conf);
        String metricsTopic = TrainingOptions.metricsTopic(conf);
        String deadLetterTopic = TrainingOptions.deadLetterTopic(conf);
        PrintStream out = s.progress();

        try (KafkaProgress kafka = new KafkaProgress(bootstrap)) {
            kafka.ensureTopics(Map.of(
                    topic, 4,
                    feedbackTopic, conf.get(TrainingOptions.FEEDBACK_PARTITIONS),
                    metricsTopic, 1,
                    deadLetterTopic, 1,
                    TrainingOptions.appliedTopic(conf), 1));

            Optional<Path> resumeFrom = s.resume() ? LatestCheckpoint.find(s.checkpointDir()) : Optional.empty();
            Map<TopicPartition, Long> examplesFrom = resumeFrom.isPresent()
                    ? withFloor(kafka.committed(TrainingOptions.examplesGroup(conf), topic), kafka.startOffsets(topic))
                    : freshStart(kafka, conf, topic);
            Map<TopicPartition, Long> feedbackFrom = kafka.endOffsets(feedbackTopic);
            Map<TopicPartition, Long> deadLettersFrom = kafka.endOffsets(deadLetterTopic);

            modelInfo(conf).write(s.checkpointDir());
            Duration idle = effectiveIdle(s, conf);
            try (TrainingCluster flink = s.cluster() == null
                            ? new LocalFlink(conf, s.parallelism())
                            : new StandaloneTraining(LocalCluster.open(s.cluster()), out);
                    MetricsFollower metrics = new MetricsFollower(bootstrap, metricsTopic, kafka.endOffsets(metricsTopic))) {
                out.println("train: " + (resumeFrom.map(p -> "resuming from " + p).orElse("fresh start"))
                        + ", topic " + topic + ", checkpoints in " + s.checkpointDir().toAbsolutePath());
                flink.start(conf, resumeFrom, feedbackFrom);
                out.println("train: job " + flink.job() + " on " + flink.describe() + "; Flink REST API at " + flink.restAddress());
                Watch watch = new Watch(kafka, conf, topic, feedbackTopic, examplesFrom, feedbackFrom);
                long started = System.nanoTime();
                long lastProgress = 0;
                Thread main = Thread.currentThread();
                Thread hook = new Thread(main::interrupt);
                Runtime.getRuntime().addShutdownHook(hook);
                try {
                    while (true) {
                        JobStatus status = flink.status();
                        if (status.isGloballyTerminalState()) {
                            throw new IllegalStateException("training job ended " + status, flink.failureCause());
                        }
                        watch.poll();
                        long now = System.nanoTime();
                        if (now - lastProgress >= PROGRESS_EVERY.toNanos()) {
                            lastProgress = now;
                            out.println(progressLine(watch, metrics, flink, (now - started) / 1e9));
                        }
                        if (idle != null && watch.quietFor().compareTo(idle) >= 0) {
                            break;
                        }
                        Thread.sleep(500);
                    }
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
                JobMonitor monitor = flink.monitor();
                JobMonitor.Checkpoints cps = monitor.checkpoints();
                long restarts = monitor.restarts() + flink.jobManagerRecoveries();
                double staleness = monitor.maxOfMetric("parameter-server", "gradientStalenessMs_p99");
                flink.cancel();
                double seconds = (System.nanoTime() - started) / 1e9;
                double[] window = metrics.window();
                long deadLetters = KafkaProgress.countCommittedRecords(bootstrap, deadLetterTopic, deadLettersFrom);
                return new TrainingSummary(watch.records(), watch.steadyRate(),
                        window[0], window[1], cps.completed(), restarts, staleness, deadLetters, seconds,
                        cps.latestPath(), cps.latestDurationMs(), cps.latestSizeBytes());
            }
        }
    }

    public static ModelInfo modelInfo(Configuration conf) {
        return new ModelInfo(
                conf.get(TrainingOptions.NAME),
                conf.get(TrainingOptions.TOPIC),
                conf.get(TrainingOptions.MODEL),
                conf.get(PsOptions.DIM),
                conf.get(PsOptions.OPTIMIZER),
                conf.getOptional(PsOptions.ROW_TTL).map(Duration::toMillis).orElse(0L),
                conf.get(PipelineOptions.MAX_PARALLELISM));
    }

    /** Quiet must outlast an idle batch's wait, the checkpoint that seals it and the one that commits its pushes. */
    private static Duration effectiveIdle(Settings s, Configuration conf) {
        if (s.untilIdle() == null) {
            return null;
        }
        Duration floor = conf.get(TrainingOptions.MAX_WAIT).plus(s.checkpointInterval().multipliedBy(3)).plusSeconds(1);
        if (s.untilIdle().compareTo(floor) < 0) {
            s.progress().println("train: --until-idle raised to " + floor.toMillis() / 1000.0 + " s (max-wait + 3 checkpoint intervals + 1 s)");
            return floor;
        }
        return s.untilIdle();
    }

    private static Map<TopicPartition, Long> freshStart(KafkaProgress kafka, Configuration conf, String topic) throws Exception {
        switch (conf.get(TrainingOptions.START_FROM)) {
            case "latest":
                return kafka.endOffsets(topic);
            case "committed":
                return withFloor(kafka.committed(TrainingOptions.examplesGroup(conf), topic), kafka.startOffsets(topic));
            default:
                return kafka.startOffsets(topic);
        }
    }

    private static Map<TopicPartition, Long> withFloor(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> floor) {
        Map<TopicPartition, Long> result = new HashMap<>(floor);
        result.putAll(offsets);
        return result;
    }

    private static String progressLine(Watch w, MetricsFollower metrics, TrainingCluster flink, double seconds) {
        double[] window = metrics.window();
        long checkpoints = -1;
        long restarts = -1;
        int parallelism = -1;
        try {
            JobMonitor monitor = flink.monitor();
            checkpoints = monitor.checkpoints().completed();
            restarts = monitor.restarts() + flink.jobManagerRecoveries();
            parallelism = monitor.parallelism();
        } catch (Exception e) {
            // REST not ready yet; show -1
        }
        return String.format(Locale.ROOT,
                "train: t=%.0fs records=%d rate=%.0f/s lag=%d feedback_lag=%d window_auc=%.4f window_logloss=%.4f"
                        + " checkpoints=%d restarts=%d parallelism=%d",
                seconds, w.records(), w.records() / Math.max(1e-3, w.activeSeconds()), w.lag(), w.feedbackLag(),
                window[0], window[1], checkpoints, restarts, parallelism);
    }

    /**
     * Tracks committed progress. The run is quiet while nothing moves: no new records, both
     * consumer groups caught up, and no new pushes. Committed offsets only move when a checkpoint
     * completes, so caught-up means trained and applied in a durable checkpoint.
     */
    private static final class Watch {
        private final KafkaProgress kafka;
        private final String examplesGroup;
        private final String feedbackGroup;
        private final String topic;
        private final String feedbackTopic;
        private final Map<TopicPartition, Long> examplesFrom;
        private final Map<TopicPartition, Long> feedbackFrom;
        private final long startedAt = System.nanoTime();
        private long records;
        private long lag;
        private long feedbackLag;
        private long lastChange = System.nanoTime();
        private long lastAdvance = System.nanoTime();
        private long firstAdvance;
        private long recordsAtFirstAdvance;
        private String lastSnapshot = "";

        Watch(KafkaProgress kafka, Configuration conf, String topic, String feedbackTopic,
              Map<TopicPartition, Long> examplesFrom, Map<TopicPartition, Long> feedbackFrom) {
            this.kafka = kafka;
            this.examplesGroup = TrainingOptions.examplesGroup(conf);
            this.feedbackGroup = TrainingOptions.feedbackGroup(conf);
            this.topic = topic;
            this.feedbackTopic = feedbackTopic;
            this.examplesFrom = examplesFrom;
            this.feedbackFrom = feedbackFrom;
        }

        void poll() throws Exception {
            Map<TopicPartition, Long> end = kafka.endOffsets(topic);
            Map<TopicPartition, Long> committed = kafka.committed(examplesGroup, topic);
            Map<TopicPartition, Long> feedbackEnd = kafka.endOffsets(feedbackTopic);
            Map<TopicPartition, Long> feedbackCommitted = kafka.committed(feedbackGroup, feedbackTopic);
            lag = KafkaProgress.lag(end, committed, examplesFrom);
            feedbackLag = KafkaProgress.lag(feedbackEnd, feedbackCommitted, feedbackFrom);
            long done = 0;
            for (Map.Entry<TopicPartition, Long> e : committed.entrySet()) {
                done += Math.max(0, e.getValue() - examplesFrom.getOrDefault(e.getKey(), 0L));
            }
            if (done != records) {
                lastAdvance = System.nanoTime();
                if (firstAdvance == 0) {
                    firstAdvance = lastAdvance;
                    recordsAtFirstAdvance = done;
                }
            }
            records = done;
            String snapshot = end + "|" + committed + "|" + feedbackEnd + "|" + feedbackCommitted;
            if (!snapshot.equals(lastSnapshot) || lag > 0 || feedbackLag > 0) {
                lastChange = System.nanoTime();
                lastSnapshot = snapshot;
            }
        }

        Duration quietFor() {
            return Duration.ofNanos(System.nanoTime() - lastChange);
        }

        long records() {
            return records;
        }

        long lag() {
            return lag;
        }

        long feedbackLag() {
            return feedbackLag;
        }

        double activeSeconds() {
            return (lastAdvance - startedAt) / 1e9;
        }

        /**
         * Examples/s between the first and the last checkpoint that moved the committed offsets:
         * job start-up excluded. Falls back to the whole run when only one checkpoint advanced.
         */
        double steadyRate() {
            double seconds = (lastAdvance - firstAdvance) / 1e9;
            return firstAdvance == 0 || seconds < 0.5
                    ? records / Math.max(1e-3, activeSeconds())
                    : (records - recordsAtFirstAdvance) / seconds;
        }
    }
}
