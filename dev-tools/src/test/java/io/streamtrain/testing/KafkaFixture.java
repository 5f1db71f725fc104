package io.streamtrain.testing;

import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.kafka.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way integration tests reach a Kafka broker: one broker per test JVM, started on first
 * use and stopped by a shutdown hook. System property {@code streamtrain.test.kafka} chooses it:
 * {@code embedded} (default) is {@link LocalKafka} in this JVM; {@code testcontainers}
 * ({@code -Pdocker}) is {@value #KAFKA_IMAGE} in Docker, and tests abort (skip) when there is no
 * Docker engine.
 *
 * <p>{@link #secured()} is a second JVM-wide broker, {@link LocalKafka#startSecure secured}: the
 * same helpers reach it over SASL_SSL as the user of its {@code client.properties}, so a test
 * written against {@link #shared()} runs against a secured cluster by taking its fixture from there.
 */
public final class KafkaFixture {
    public static final String MODE_PROPERTY = "streamtrain.test.kafka";
    public static final String KAFKA_IMAGE = "apache/kafka:4.2.0";
    private static final Logger LOG = LoggerFactory.getLogger(KafkaFixture.class);

    private static KafkaFixture shared;
    private static KafkaFixture secured;
    private static String unavailable; // why the broker cannot run here; tests abort with it

    private final KafkaConnection connection;
    private final AutoCloseable broker;
    private final LocalKafka secure; // the secured broker, or null

    private KafkaFixture(KafkaConnection connection, AutoCloseable broker, LocalKafka secure) {
        this.connection = connection;
        this.broker = broker;
        this.secure = secure;
    }

    /** The JVM-wide broker, started on first call. */
    public static synchronized KafkaFixture shared() {
        if (unavailable != null) {
            Assumptions.abort(unavailable);
        }
        if (shared == null) {
            shared = start();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::closeQuietly, "kafka-fixture-shutdown"));
        }
        return shared;
    }

    /**
     * The JVM-wide secured broker (SASL_SSL on its port, mTLS on the next, ACLs on), started on
     * first call with its certificates and client properties files in a temporary directory.
     */
    public static synchronized KafkaFixture secured() {
        if (secured == null) {
            long t0 = System.nanoTime();
            try {
                Path dir = Files.createTempDirectory("streamtrain-secure-kafka");
                LocalKafka kafka = LocalKafka.startSecure(0, dir);
                secured = new KafkaFixture(kafka.connection(), () -> {
                    kafka.close();
                    ScratchDirectory.deleteOrWarn(dir);
                }, kafka);
            } catch (Exception e) {
                throw new IllegalStateException("could not start the secured Kafka broker", e);
            }
            LOG.info("secured test Kafka at {} started in {} ms", secured.bootstrapServers(), (System.nanoTime() - t0) / 1_000_000);
            Runtime.getRuntime().addShutdownHook(new Thread(secured::closeQuietly, "secured-kafka-fixture-shutdown"));
        }
        return secured;
    }

    /** The secured broker itself (its mTLS and admin connections, its files); only for {@link #secured()}. */
    public LocalKafka secureBroker() {
        if (secure == null) {
            throw new IllegalStateException("not the secured fixture");
        }
        return secure;
    }

    private static KafkaFixture start() {
        String mode = System.getProperty(MODE_PROPERTY, "embedded");
        long t0 = System.nanoTime();
        KafkaFixture fixture;
        switch (mode) {
            case "embedded" -> {
                try {
                    LocalKafka kafka = LocalKafka.start(0, null);
                    fixture = new KafkaFixture(kafka.connection(), kafka, null);
                } catch (Exception e) {
                    throw new IllegalStateException("could not start the embedded Kafka broker", e);
                }
            }
            case "testcontainers" -> {
                // Loaded only in this mode, so modules without Testcontainers on their test
                // classpath can still use the embedded broker.
                TestcontainersKafka.Started started = TestcontainersKafka.start(KAFKA_IMAGE);
                if (started.skipReason() != null) {
                    unavailable = started.skipReason();
                    Assumptions.abort(unavailable);
                }
                fixture = new KafkaFixture(KafkaConnection.to(started.bootstrapServers()), started.container(), null);
            }
            default -> throw new IllegalArgumentException(
                    MODE_PROPERTY + "=" + mode + ": expected 'embedded' or 'testcontainers'");
        }
        LOG.info("test Kafka ({}) at {} started in {} ms", mode, fixture.bootstrapServers(),
                (System.nanoTime() - t0) / 1_000_000);
        return fixture;
    }

    public String bootstrapServers() {
        return connection.bootstrapServers();
    }

    /** The broker with the client settings it needs: none, or the secured broker's SASL_SSL ones. */
    public KafkaConnection connection() {
        return connection;
    }

    /** The client properties every client of a test's job needs (empty for a plaintext broker). */
    public Map<String, String> clientProperties() {
        return connection.clientProperties();
    }

    /** Creates the topic unless it exists. */
    public void createTopic(String name, int partitions) {
        Topics.ensure(connection(), Map.of(name, partitions));
    }

    /**
     * A new idempotent byte-array producer; the caller closes it. One request in flight per
     * connection: right after a topic is created the broker can answer the first batch with
     * NOT_LEADER and accept the next ones, which leaves the retried batch out of sequence until it
     * expires (seen here on a freshly created partition), silently losing test input.
     */
    public KafkaProducer<byte[], byte[]> producer() {
        return connection().client()
                .idempotent()
                .require(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
                .require(ProducerConfig.LINGER_MS_CONFIG, 5)
                .producer();
    }

    /** A new transactional byte-array producer with this id (the caller calls initTransactions and closes it). */
    public KafkaProducer<byte[], byte[]> transactionalProducer(String transactionalId) {
        return connection().client().idempotent().require(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId).producer();
    }

    /** A new byte-array consumer with a fresh group id, auto commit off, reading from the earliest offset. */
    public KafkaConsumer<byte[], byte[]> consumer(boolean readCommitted) {
        return connection().client()
                .require(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID())
                .require(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
                .require(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false)
                .require(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted")
                .consumer();
    }

    /**
     * Everything in the topic from the beginning up to the end offsets taken at the start (the
     * last stable offset when {@code readCommitted}), ordered by partition then offset. A topic
     * that does not exist reads as empty (and is not created).
     *
     * @throws IllegalStateException when the end offsets are not reached within {@code timeout}
     */
    public List<ConsumerRecord<byte[], byte[]>> readAll(String topic, boolean readCommitted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(readCommitted)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                return records;
            }
            List<TopicPartition> partitions = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, timeout));
            while (!reached(consumer, end)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("readAll(" + topic + "): end offsets " + end
                            + " not reached within " + timeout + " (read " + records.size() + ")");
                }
                consumer.poll(Duration.ofMillis(Math.min(200, Math.max(1, left / 1_000_000))))
                        .forEach(r -> {
                            if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                                records.add(r);
                            }
                        });
            }
        }
        records.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return records;
    }

    private static boolean reached(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void closeQuietly() {
        try {
            broker.close();
        } catch (Exception e) {
            LOG.warn("could not stop the test Kafka broker", e);
        }
    }
}
