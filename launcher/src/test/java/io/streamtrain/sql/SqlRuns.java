package io.streamtrain.sql;

import io.streamtrain.kafka.KafkaConnection;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.JobMonitor;
import io.streamtrain.train.KafkaProgress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Waiting for a streamtrain table's training job to have trained on everything its query staged. */
final class SqlRuns {
    private SqlRuns() {}

    /**
     * Every one of {@code expected} rows staged (committed) and consumed by the loop, in a batch
     * (the batchers' {@code recordsAwaitingBatch} is 0: a partition's last, partial batch waits for
     * its idle seal and a checkpoint after the offsets covering it are committed), and every push
     * applied in a completed checkpoint, holding for a few polls in a row (a batch may still be on
     * its way to the PS). Pushes are counted as the PS's feedback source reads them, committed or
     * not: the one transactional sink commits them a checkpoint after the PS applied them.
     */
    static void awaitTrained(KafkaFixture kafka, JobMonitor job, String model, long expected, Duration timeout) throws Exception {
        String staging = model + ".examples";
        String feedback = staging + ".feedback";
        KafkaConnection connection = kafka.connection();
        long deadline = System.nanoTime() + timeout.toNanos();
        int quiet = 0;
        String state = "";
        try (KafkaProgress progress = new KafkaProgress(connection)) {
            while (quiet < 4) {
                assertTrue(System.nanoTime() < deadline, "training did not finish within " + timeout + "; last " + state);
                Thread.sleep(1_000);
                if (!progress.topicExists(staging) || !progress.topicExists(feedback)) {
                    continue;
                }
                Map<TopicPartition, Long> stagingEnd = progress.endOffsets(staging);
                Map<TopicPartition, Long> examplesCommitted = progress.committed(model + "-examples", staging);
                Map<TopicPartition, Long> feedbackEnd = progress.endOffsets(feedback);
                Map<TopicPartition, Long> feedbackCommitted = progress.committed(model + "-feedback", feedback);
                double awaitingBatch = job.sumOfMetric("batcher", "recordsAwaitingBatch");
                state = "staging end " + stagingEnd + " committed " + examplesCommitted
                        + ", feedback end " + feedbackEnd + " committed " + feedbackCommitted
                        + ", records awaiting a batch " + awaitingBatch;
                // Offsets alone count transaction markers: ask a read_committed consumer what is left.
                boolean caughtUp = examplesCommitted.keySet().equals(stagingEnd.keySet())
                        && feedbackCommitted.keySet().equals(feedbackEnd.keySet())
                        && awaitingBatch == 0
                        && KafkaProgress.countCommittedRecords(connection, staging, examplesCommitted) == 0
                        && KafkaProgress.countWrittenRecords(connection, feedbackCommitted) == 0;
                if (caughtUp) {
                    Map<TopicPartition, Long> start = new HashMap<>();
                    stagingEnd.keySet().forEach(tp -> start.put(tp, 0L));
                    long staged = KafkaProgress.countCommittedRecords(connection, staging, start);
                    state += ", staged " + staged;
                    caughtUp = staged == expected;
                }
                quiet = caughtUp ? quiet + 1 : 0;
            }
        }
    }
}
