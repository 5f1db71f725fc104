package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.export.CheckpointRows;
import io.streamtrain.export.ExportedRow;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A training topic written by transactions (the joiner's output, a SQL table's staging topic):
 * commit markers take offsets that no consumer reads, so `--until-idle` must still see the run
 * caught up and end, `records=` must count records rather than offsets, and an aborted
 * transaction's records must not be trained.
 */
class TransactionalInputIT {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void untilIdleEndsOnATransactionalTopicAndCountsItsCommittedRecordsOnce(@TempDir Path checkpoints) throws Exception {
        String topic = "txn-input-" + System.nanoTime();
        kafka.createTopic(topic, 3);
        TestExamples committed = new TestExamples(7);
        TestExamples aborted = new TestExamples(8);
        try (KafkaProducer<byte[], byte[]> producer = kafka.transactionalProducer(topic + "-writer")) {
            producer.initTransactions();
            for (int txn = 0; txn < 6; txn++) {
                producer.beginTransaction();
                (txn == 3 ? aborted : committed).produce(producer, topic, 500);
                if (txn == 3) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }

        TrainingSummary summary = TrainingRun.run(settings(topic, checkpoints));
        System.err.println("run: " + summary.line());

        assertEquals(2_500, summary.records(), "committed records, not offsets (markers and aborted records take offsets too): " + summary.line());
        assertTrue(summary.checkpoints() >= 1, summary.line());
        List<ExportedRow> rows = CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints));
        committed.assertCountedExactlyOnce(rows);
    }

    private TrainingRun.Settings settings(String topic, Path checkpoints) {
        return new TrainingRun.Settings(TestExamples.oracleJob(kafka.bootstrapServers(), topic), checkpoints, 1,
                Duration.ofMillis(500), Duration.ofSeconds(3), true, System.err);
    }
}
