package io.streamtrain.join;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.export.SourceOffsets;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaOutage;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.train.run.CheckpointedProgress;
import io.streamtrain.train.run.JobEndedException;
import io.streamtrain.train.RequiredFlinkSettings;
import io.streamtrain.train.run.JobMonitor;
import io.streamtrain.train.KafkaProgress;
import io.streamtrain.train.TopicOptions;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.FlinkApplication;
import io.streamtrain.train.run.LocalFlink;
import io.streamtrain.train.run.SessionJob;
import io.streamtrain.train.run.SessionTarget;
import io.streamtrain.train.run.TrainingCluster;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs the joiner on a local Flink in this JVM or on a session cluster ({@code --jobmanager}): resumes from the newest retained checkpoint in the
 * checkpoint directory, prints progress, and stops when the bounded input is done
 * ({@code until-end}), when the inputs have been quiet for {@code untilIdle}, or on interrupt
 * (the latest checkpoint is kept, so the next run resumes with its open windows). Progress and the
 * summary come from the run's own checkpoints ({@link CheckpointedProgress}); a run that completed
 * none fails instead of returning a summary.
 */
public final class JoinRun {
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);
    /** Written into the checkpoint directory when an until-end run finished: its checkpoints hold finished sources. */
    static final String FINISHED_MARKER = "JOIN_FINISHED";

    /** {@code session}: the session cluster to submit the joiner to, or null for a Flink in this JVM. */
    public record Settings(Configuration conf, Path checkpointDir, int parallelism, Duration checkpointInterval,
            Duration untilIdle, boolean resume, PrintStream progress, SessionTarget session) {
        public Settings(Configuration conf, Path checkpointDir, int parallelism, Duration checkpointInterval,
                Duration untilIdle, boolean resume, PrintStream progress) {
            this(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, resume, progress, null);
        }
    }

    /** The outcome; {@link #line()} is the machine-readable last line of {@code join}. */
    public record Summary(long impressions, long clicks, long examples, long deadLetters, long checkpoints, long restarts,
            double seconds) {
        public double impressionsPerSecond() {
            return impressions / Math.max(1e-3, seconds);
        }

        public String line() {
            return String.format(Locale.ROOT, "join: impressions=%d clicks=%d examples=%d dead_letters=%d checkpoints=%d"
                            + " restarts=%d seconds=%.1f impressions_per_s=%.0f",
                    impressions, clicks, examples, deadLetters, checkpoints, restarts, seconds, impressionsPerSecond());
        }
    }

    private JoinRun() {}

    public static Configuration flinkConfiguration(Settings s) {
        Configuration c = new Configuration(s.conf());
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, s.checkpointInterval());
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, ModelStorage.uri(s.checkpointDir()).toString());
        c.set(CoreOptions.DEFAULT_PARALLELISM, s.parallelism());
        return RequiredFlinkSettings.apply(c);
    }

    public static Summary run(Settings s) throws Exception {
        Configuration conf = flinkConfiguration(s);
        String impressions = JoinOptions.require(conf, JoinOptions.IMPRESSIONS_TOPIC);
        String clicks = JoinOptions.require(conf, JoinOptions.CLICKS_TOPIC);
        String out = JoinOptions.require(conf, JoinOptions.OUT_TOPIC);
        String deadLetters = JoinOptions.deadLetterTopic(conf);
        boolean untilEnd = conf.get(JoinOptions.UNTIL_END);
        KafkaConnection connection = TrainingOptions.kafka(conf);
        PrintStream log = s.progress();
        if (Files.exists(s.checkpointDir().resolve(FINISHED_MARKER))) {
            throw new IllegalStateException("the --until-end join in " + s.checkpointDir() + " has finished (its checkpoints"
                    + " hold finished sources); use a new --checkpoint-dir, with --start-from committed to continue after it");
        }
        KafkaPreflight.check(connection);
        try (KafkaProgress kafka = new KafkaProgress(connection)) {
            kafka.ensureTopics(Map.of(impressions, 4, clicks, 4));
            kafka.ensureTopics(List.of(TopicOptions.topic(conf, out, 4, Map.of()),
                    TopicOptions.topic(conf, deadLetters, 1, TopicOptions.deadLetterConfigs(conf))));
            Optional<Path> resumeFrom = s.resume() ? LatestCheckpoint.find(s.checkpointDir()) : Optional.empty();
            String impressionsSource = JoinJob.sourceUid(JoinJob.IMPRESSIONS);
            String clicksSource = JoinJob.sourceUid(JoinJob.CLICKS);
            Map<TopicPartition, Long> impressionsFrom = from(kafka, conf, resumeFrom, impressionsSource, JoinOptions.impressionsGroup(conf), impressions);
            Map<TopicPartition, Long> clicksFrom = from(kafka, conf, resumeFrom, clicksSource, JoinOptions.clicksGroup(conf), clicks);
            CheckpointedProgress progress = new CheckpointedProgress(s.checkpointDir(),
                    Map.of(impressionsSource, impressionsFrom, clicksSource, clicksFrom));
            Map<TopicPartition, Long> outFrom = kafka.endOffsets(out);
            Map<TopicPartition, Long> deadFrom = kafka.endOffsets(deadLetters);

            try (TrainingCluster flink = s.session() != null
                    ? new SessionJob(s.session(), FlinkApplication.JOIN, log)
                    : new LocalFlink(conf, s.parallelism(), FlinkApplication.JOIN)) {
                log.println("join: " + resumeFrom.map(p -> "resuming from " + ModelStorage.location(p)).orElse("fresh start") + ", " + impressions
                        + " + " + clicks + " -> " + out + " (dead letters: " + deadLetters + "), window "
                        + conf.get(JoinOptions.WINDOW) + (untilEnd ? ", until the current end of input" : ""));
                flink.start(conf, resumeFrom, Map.of());
                log.println("join: job " + flink.job() + " on " + flink.describe() + "; Flink REST API at " + flink.restAddress());
                long started = System.nanoTime();
                long lastProgress = started;
                long lastChange = started;
                int checkpointsAtLastChange = 0;
                String lastSnapshot = "";
                KafkaOutage outage = new KafkaOutage("join", conf.get(TrainingOptions.KAFKA_OUTAGE_PATIENCE));
                Map<TopicPartition, Long> ie = Map.of();
                Map<TopicPartition, Long> ce = Map.of();
                try (JobMonitor monitor = flink.monitor()) {
                    long checkpoints = 0;
                    long restarts = 0;
                    Thread main = Thread.currentThread();
                    Thread hook = new Thread(main::interrupt);
                    Runtime.getRuntime().addShutdownHook(hook);
                    try {
                        while (true) {
                            JobStatus status = flink.status();
                            if (status == JobStatus.FINISHED) {
                                break;
                            }
                            if (status.isGloballyTerminalState()) {
                                throw JobEndedException.of("join", status, flink);
                            }
                            try {
                                checkpoints = monitor.checkpoints().completed();
                                restarts = monitor.restarts();
                            } catch (Exception e) {
                                // REST not ready yet
                            }
                            progress.refresh(flink.job());
                            boolean unreachable = false;
                            try {
                                ie = kafka.endOffsets(impressions);
                                ce = kafka.endOffsets(clicks);
                                outage.reachable();
                            } catch (Exception e) {
                                // The last offsets stand; an outage is never quiet.
                                outage.failed("reading the topics' offsets", e);
                                unreachable = true;
                            }
                            Map<TopicPartition, Long> ic = progress.offsets(impressionsSource);
                            Map<TopicPartition, Long> cc = progress.offsets(clicksSource);
                            long lag = KafkaProgress.lag(ie, ic, impressionsFrom) + KafkaProgress.lag(ce, cc, clicksFrom);
                            String snapshot = ie + "|" + ce + "|" + ic + "|" + cc;
                            long now = System.nanoTime();
                            if (!snapshot.equals(lastSnapshot) || lag > 0 || unreachable) {
                                lastSnapshot = snapshot;
                                lastChange = now;
                                checkpointsAtLastChange = progress.checkpointsRead();
                            }
                            if (now - lastProgress >= PROGRESS_EVERY.toNanos()) {
                                lastProgress = now;
                                log.printf(Locale.ROOT, "join: t=%.0fs impressions=%d clicks=%d lag=%d checkpoints=%d restarts=%d%n",
                                        (now - started) / 1e9, consumed(ic, impressionsFrom), consumed(cc, clicksFrom), lag,
                                        checkpoints, restarts);
                            }
                            // Quiet counts once a checkpoint completed after the last move: a job that cannot checkpoint is never done.
                            if (!untilEnd && s.untilIdle() != null && progress.checkpointsRead() > checkpointsAtLastChange
                                    && now - lastChange >= s.untilIdle().toNanos()) {
                                break;
                            }
                            Thread.sleep(500);
                        }
                    } catch (InterruptedException | org.apache.kafka.common.errors.InterruptException e) {
                        Thread.interrupted();
                        log.println("join: interrupted, stopping (the latest checkpoint is kept)");
                    } finally {
                        try {
                            Runtime.getRuntime().removeShutdownHook(hook);
                        } catch (IllegalStateException shuttingDown) {
                            // the JVM is exiting
                        }
                    }
                    try {
                        checkpoints = monitor.checkpoints().completed();
                        restarts = monitor.restarts();
                    } catch (Exception e) {
                        // keep the last values read
                    }
                    boolean finished = flink.status() == JobStatus.FINISHED;
                    if (!finished) {
                        flink.cancel();
                        if (progress.checkpointsRead() == 0 && checkpoints == 0) {
                            throw new IllegalStateException("the join completed no checkpoint, so nothing it joined is committed"
                                    + (restarts > 0 ? " (the job restarted " + restarts + " times)" : ""));
                        }
                    }
                    progress.refresh(flink.job());
                    double seconds = (System.nanoTime() - started) / 1e9;
                    long impressionsRead = consumed(progress.offsets(impressionsSource), impressionsFrom);
                    long clicksRead = consumed(progress.offsets(clicksSource), clicksFrom);
                    if (finished) {
                        // A bounded run's final checkpoint holds no finished splits: it read everything up to the end it saw.
                        impressionsRead = Math.max(impressionsRead, outage.retry("counting impressions",
                                () -> KafkaProgress.countCommittedRecords(connection, impressions, impressionsFrom)));
                        clicksRead = Math.max(clicksRead, outage.retry("counting clicks",
                                () -> KafkaProgress.countCommittedRecords(connection, clicks, clicksFrom)));
                        Files.createDirectories(s.checkpointDir());
                        Files.writeString(s.checkpointDir().resolve(FINISHED_MARKER), "finished at " + java.time.Instant.now() + "\n");
                    }
                    return new Summary(impressionsRead, clicksRead,
                            outage.retry("counting joined examples", () -> KafkaProgress.countCommittedRecords(connection, out, outFrom)),
                            outage.retry("counting dead letters", () -> KafkaProgress.countCommittedRecords(connection, deadLetters, deadFrom)),
                            checkpoints, restarts, seconds);
                }
            }
        }
    }

    /** Where the job's source of {@code topic} starts: its offsets in the checkpoint resumed from, else where start-from says. */
    private static Map<TopicPartition, Long> from(KafkaProgress kafka, Configuration conf, Optional<Path> resumeFrom, String sourceUid,
            String group, String topic) throws Exception {
        Map<TopicPartition, Long> result = new HashMap<>(kafka.startOffsets(topic));
        if (resumeFrom.isPresent()) {
            result.putAll(SourceOffsets.of(resumeFrom.get(), sourceUid));
        } else if ("latest".equals(conf.get(JoinOptions.START_FROM))) {
            result.putAll(kafka.endOffsets(topic));
        } else if ("committed".equals(conf.get(JoinOptions.START_FROM))) {
            result.putAll(kafka.committed(group, topic));
        }
        return result;
    }

    private static long consumed(Map<TopicPartition, Long> committed, Map<TopicPartition, Long> from) {
        long n = 0;
        for (Map.Entry<TopicPartition, Long> e : committed.entrySet()) {
            n += Math.max(0, e.getValue() - from.getOrDefault(e.getKey(), 0L));
        }
        return n;
    }
}
