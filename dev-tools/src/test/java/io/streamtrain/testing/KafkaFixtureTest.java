package io.streamtrain.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class KafkaFixtureTest {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void producesAndReadsBack() throws Exception {
        kafka.createTopic("fixture-roundtrip", 3);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>("fixture-roundtrip", i % 3, null, bytes("v" + i))).get();
            }
        }
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll("fixture-roundtrip", false, Duration.ofSeconds(10));
        assertEquals(30, records.size());
        assertArrayEquals(bytes("v0"), records.get(0).value());
        assertEquals(0, records.get(0).partition());
        assertEquals(2, records.get(29).partition());
    }

    @Test
    void createTopicIsIdempotentAndKeepsPartitions() throws Exception {
        kafka.createTopic("fixture-created", 4);
        kafka.createTopic("fixture-created", 4);
        kafka.createTopic("fixture-created", 2); // exists: left alone
        try (Admin admin = Topics.admin(kafka.connection())) {
            int partitions = admin.describeTopics(Set.of("fixture-created")).allTopicNames().get()
                    .get("fixture-created").partitions().size();
            assertEquals(4, partitions);
        }
    }

    @Test
    void missingTopicReadsEmptyWithoutCreatingIt() throws Exception {
        assertTrue(kafka.readAll("fixture-never-written", true, Duration.ofSeconds(5)).isEmpty());
        try (Admin admin = Topics.admin(kafka.connection())) {
            assertTrue(!admin.listTopics().names().get().contains("fixture-never-written"));
        }
    }

    @Test
    void readCommittedSkipsAbortedTransactions() throws Exception {
        kafka.createTopic("fixture-tx", 1);
        try (KafkaProducer<byte[], byte[]> tx = kafka.transactionalProducer("fixture-tx-producer")) {
            tx.initTransactions();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>("fixture-tx", bytes("aborted")));
            tx.flush(); // abortTransaction drops unsent records: make sure this one is in the log
            tx.abortTransaction();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>("fixture-tx", bytes("committed")));
            tx.commitTransaction();
        }
        List<ConsumerRecord<byte[], byte[]>> committed = kafka.readAll("fixture-tx", true, Duration.ofSeconds(10));
        assertEquals(1, committed.size());
        assertArrayEquals(bytes("committed"), committed.get(0).value());
        assertEquals(2, kafka.readAll("fixture-tx", false, Duration.ofSeconds(10)).size());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
