package io.streamtrain.train.run;

import io.streamtrain.kafka.KafkaOutage;
import io.streamtrain.ps.RunHistogram;
import io.streamtrain.train.KafkaProgress;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleFunction;
import io.streamtrain.train.TrainingJob;
import org.apache.flink.api.common.JobStatus;
import org.HdrHistogram.Histogram;
import org.apache.kafka.common.TopicPartition;

/**
 * Tracks the run's checkpointed progress ({@link CheckpointedProgress}). The run is quiet while
 * nothing moves: no new records, both sources caught up in a completed checkpoint, no new pushes,
 * and no batcher holding records that no batch took yet (a partition's last, partial batch waits
 * for its idle seal and a checkpoint, while the source offsets that cover its records are already
 * checkpointed); and only once a checkpoint completed after the last move, so caught-up means
 * trained and applied in a durable checkpoint, and a job that cannot checkpoint (a restart loop)
 * is never quiet.
 */
final class ProgressWatch {
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);
    private static final long POLL_MS = 500;

    private final KafkaProgress kafka;
    private final CheckpointedProgress checkpoints;
    private final String examplesSource;
    private final String topic;
    private final String feedbackTopic;
    private final Map<TopicPartition, Long> examplesFrom;
    private final Map<TopicPartition, Long> feedbackFrom;
    private final Callable<Map<TopicPartition, Long>> target;
    private final long startedAt = System.nanoTime();
    private long records;
    private long lag;
    private long feedbackLag;
    private long lastChange = System.nanoTime();
    private int checkpointsAtLastChange;
    private long lastAdvance = System.nanoTime();
    private final SteadyRate steadyRate = new SteadyRate();
    private String lastSnapshot = "";
    private Map<TopicPartition, Long> examplesCheckpointed = Map.of();
    private boolean transactional;
    private final KafkaOutage outage;

    /**
     * @param checkpointDir the run's checkpoint directory, where its progress is read
     * @param examplesSource the uid of the job's examples source, which starts at {@code examplesFrom}
     *     (the feedback source, {@link TrainingJob#FEEDBACK_SOURCE_UID}, at {@code feedbackFrom})
     * @param target where the examples source has to get: the topic's end (train) or a range's end (backfill)
     * @param outage rides out Kafka outages for this watch (and the run's other Kafka reads)
     */
    ProgressWatch(KafkaProgress kafka, Path checkpointDir, String examplesSource, String topic, String feedbackTopic,
                  Map<TopicPartition, Long> examplesFrom, Map<TopicPartition, Long> feedbackFrom,
                  Callable<Map<TopicPartition, Long>> target, KafkaOutage outage) {
        this.kafka = kafka;
        this.outage = outage;
        this.checkpoints = new CheckpointedProgress(checkpointDir,
                Map.of(examplesSource, examplesFrom, TrainingJob.FEEDBACK_SOURCE_UID, feedbackFrom));
        this.examplesSource = examplesSource;
        this.target = target;
        this.topic = topic;
        this.feedbackTopic = feedbackTopic;
        this.examplesFrom = examplesFrom;
        this.feedbackFrom = feedbackFrom;
    }

    /**
     * Polls until {@code done} holds, printing {@code progress} (given the seconds since the call)
     * every few seconds; throws if the job ends first, with its failure as the cause.
     */
    void awaitDone(TrainingCluster flink, String what, PrintStream out, DoubleFunction<String> progress, BooleanSupplier done)
            throws Exception {
        long started = System.nanoTime();
        long lastProgress = 0;
        while (true) {
            JobStatus status = flink.status();
            if (status.isGloballyTerminalState()) {
                throw JobEndedException.of(what, status, flink);
            }
            // The metric only once offsets stand still: a REST read makes the JobManager fetch every
            // metric of the job, which cost the demo a fifth of its rate when done on every poll.
            if (!pollThroughOutage(flink) && recordsAwaitingBatch(flink) > 0) {
                changed();
            }
            long now = System.nanoTime();
            if (now - lastProgress >= PROGRESS_EVERY.toNanos()) {
                lastProgress = now;
                out.println(progress.apply((now - started) / 1e9));
            }
            if (done.getAsBoolean()) {
                return;
            }
            Thread.sleep(POLL_MS);
        }
    }

    /**
     * The batchers' records not in an emitted batch yet, from the job's metrics; 0 when the metric
     * cannot be read (not reported yet, or the REST API is away): then quiet rests on offsets alone.
     */
    private static double recordsAwaitingBatch(TrainingCluster flink) {
        try (JobMonitor monitor = flink.monitor()) {
            double n = monitor.sumOfMetric("batcher", "recordsAwaitingBatch");
            return Double.isNaN(n) ? 0 : n;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the run is being stopped: the next sleep says so
            return 0;
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * The PS's staleness counts so far, its subtasks' together ({@code ps.gradientStalenessRunCounts});
     * null when they cannot be read. Read once a checkpoint moved the offsets, not on every poll: a
     * REST read of metrics makes the JobManager fetch every metric of the job.
     */
    private static Histogram stalenessCounts(TrainingCluster flink) {
        try (JobMonitor monitor = flink.monitor()) {
            Histogram all = null;
            for (String counts : monitor.subtaskValuesOfMetric("parameter-server", "gradientStalenessRunCounts")) {
                Histogram one = RunHistogram.decode(counts);
                if (all == null) {
                    all = one;
                } else {
                    all.add(one);
                }
            }
            return all;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the run is being stopped: the next sleep says so
            return null;
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * {@link #poll}, but while Kafka is unreachable (within the outage patience) the last readings
     * stand and the run counts as moving: a run is never found quiet in an outage.
     */
    private boolean pollThroughOutage(TrainingCluster flink) throws Exception {
        try {
            boolean moved = poll(flink);
            outage.reachable();
            return moved;
        } catch (Exception e) {
            outage.failed("reading the topics' offsets", e);
            changed();
            return true;
        }
    }

    /** Reads the offsets; returns whether anything moved (or is left to read) since the last poll. */
    private boolean poll(TrainingCluster flink) throws Exception {
        checkpoints.refresh(flink.job());
        Map<TopicPartition, Long> end = target.call();
        // A backfill's source reads on past its range's end; progress counts only up to it.
        Map<TopicPartition, Long> checkpointed = KafkaProgress.capped(checkpoints.offsets(examplesSource), end);
        Map<TopicPartition, Long> feedbackEnd = kafka.endOffsets(feedbackTopic);
        Map<TopicPartition, Long> feedbackCheckpointed = checkpoints.offsets(TrainingJob.FEEDBACK_SOURCE_UID);
        lag = KafkaProgress.lag(end, checkpointed, examplesFrom);
        feedbackLag = KafkaProgress.lag(feedbackEnd, feedbackCheckpointed, feedbackFrom);
        long done = 0;
        for (Map.Entry<TopicPartition, Long> e : checkpointed.entrySet()) {
            done += Math.max(0, e.getValue() - examplesFrom.getOrDefault(e.getKey(), 0L));
        }
        if (done > records) {
            lastAdvance = System.nanoTime();
            steadyRate.advanced(lastAdvance, done, lag, ProcessCpu.nanos(), stalenessCounts(flink));
            records = done;
        }
        examplesCheckpointed = checkpointed;
        String snapshot = end + "|" + checkpointed + "|" + feedbackEnd + "|" + feedbackCheckpointed;
        if (snapshot.equals(lastSnapshot)) {
            // Offsets stand still short of the end: on a topic written by transactions (the joiner's
            // output, SQL staging) the gap can be commit markers alone, which no consumer reads.
            if (lag > 0 && !holdsRecords(checkpointed, examplesFrom, end)) {
                lag = 0;
                transactional = true;
            }
            if (feedbackLag > 0 && !holdsRecords(feedbackCheckpointed, feedbackFrom, feedbackEnd)) {
                feedbackLag = 0;
            }
        }
        if (!snapshot.equals(lastSnapshot) || lag > 0 || feedbackLag > 0) {
            changed();
            lastSnapshot = snapshot;
            return true;
        }
        return false;
    }

    private void changed() {
        lastChange = System.nanoTime();
        checkpointsAtLastChange = checkpoints.checkpointsRead();
    }

    /** Whether a committed (read_committed) record lies between where the source is (or starts) and the end. */
    private boolean holdsRecords(Map<TopicPartition, Long> committed, Map<TopicPartition, Long> floor, Map<TopicPartition, Long> end) {
        Map<TopicPartition, Long> from = new HashMap<>();
        end.keySet().forEach(tp -> from.put(tp, committed.getOrDefault(tp, floor.getOrDefault(tp, 0L))));
        return kafka.countCommittedRecords(from, end, 1) > 0;
    }

    /** How long nothing moved; zero until a checkpoint completed after the last move. */
    Duration quietFor() {
        return checkpoints.checkpointsRead() > checkpointsAtLastChange ? Duration.ofNanos(System.nanoTime() - lastChange) : Duration.ZERO;
    }

    /** Completed checkpoints of this run read so far. */
    int checkpointsRead() {
        return checkpoints.checkpointsRead();
    }

    /** Records trained and checkpointed, counted from offsets (so with transaction markers on a transactional topic). */
    long records() {
        return records;
    }

    /**
     * Records trained and checkpointed, exactly: on a topic where commit markers were seen, counted
     * by reading the checkpointed range (once, for a run's summary).
     */
    long exactRecords() throws Exception {
        return transactional
                ? outage.retry("counting the trained records", () -> kafka.countCommittedRecords(examplesFrom, examplesCheckpointed, Long.MAX_VALUE))
                : records;
    }

    /** For a progress line: how long Kafka has been unreachable, empty while it answers. */
    String kafkaNote() {
        return outage.ongoing() ? " kafka_unreachable_for=" + outage.unreachableFor().toSeconds() + "s" : "";
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

    /** Examples/s while the backlog lasted, start-up and the drained end excluded ({@link SteadyRate}). */
    double steadyRate() {
        return steadyRate.rate(records, activeSeconds());
    }

    /** The PS's staleness quantile {@code q} (ms) over the span of {@link #steadyRate} ({@link SteadyRate#stalenessQuantile}). */
    double steadyStalenessMs(double q) {
        return steadyRate.stalenessQuantile(q);
    }

    /** This JVM's CPU µs per example over the span of {@link #steadyRate} ({@link SteadyRate#cpuMicrosPerExample}). */
    double steadyCpuMicrosPerExample() {
        return steadyRate.cpuMicrosPerExample();
    }
}
