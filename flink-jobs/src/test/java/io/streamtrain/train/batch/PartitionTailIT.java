package io.streamtrain.train.batch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.testing.KafkaFixture;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The idle-seal guard on a real broker: plain records, a committed transaction's marker, an aborted tail. */
class PartitionTailIT {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void aPartitionIsDrainedOnlyWhenNoCommittedRecordFollows() throws Exception {
        String topic = "tail-" + System.nanoTime();
        kafka.createTopic(topic, 1);
        try (PartitionTail tail = new PartitionTail(kafka.connection());
                KafkaProducer<byte[], byte[]> plain = kafka.producer();
                KafkaProducer<byte[], byte[]> transactional = transactional()) {
            assertTrue(tail.drainedFrom(topic, 0, 0), "an empty partition");
            for (int i = 0; i < 3; i++) {
                plain.send(new ProducerRecord<>(topic, 0, null, new byte[] {(byte) i})).get();
            }
            assertFalse(tail.drainedFrom(topic, 0, 1), "records at offsets 1 and 2 follow");
            assertTrue(tail.drainedFrom(topic, 0, 3), "nothing after offset 2");

            transactional.initTransactions();
            transactional.beginTransaction();
            transactional.send(new ProducerRecord<>(topic, 0, null, new byte[] {9}));
            transactional.commitTransaction(); // record at 3, commit marker at 4
            awaitVisible(topic, 4); // the coordinator writes the markers after commitTransaction returns
            assertFalse(tail.drainedFrom(topic, 0, 3), "the committed record at 3");
            assertTrue(tail.drainedFrom(topic, 0, 4), "only the commit marker follows");

            transactional.beginTransaction();
            transactional.send(new ProducerRecord<>(topic, 0, null, new byte[] {7}));
            transactional.flush();
            transactional.abortTransaction(); // aborted record at 5, abort marker at 6
            assertTrue(tail.drainedFrom(topic, 0, 5), "an aborted record and its marker are not records");
        }
    }

    /** Until a read_committed consumer sees {@code records} records: the commit marker is in place. */
    private void awaitVisible(String topic, int records) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (kafka.readAll(topic, true, Duration.ofSeconds(2)).size() < records) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the committed transaction did not become visible");
            }
        }
    }

    private KafkaProducer<byte[], byte[]> transactional() {
        return kafka.transactionalProducer("tail-test-" + System.nanoTime());
    }
}
