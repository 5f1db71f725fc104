package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.testing.KafkaFixture;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A local {@code train} run listens on the loopback interface only: REST, BLOB server, Prometheus reporter, all of it. */
class LocalPortsIT {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void aLocalTrainRunListensOnLoopbackOnly(@TempDir Path dir) throws Exception {
        String topic = "ports-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            CliRun.produceExamples(producer, topic, 2_000);
        }
        Set<ListeningSockets.Socket> before = new HashSet<>(ListeningSockets.ofThisProcess());

        Path checkpoints = dir.resolve("checkpoints");
        CliRun.Running train = CliRun.start("train", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                "--model", "lr", "--checkpoint-interval", "1s", "--checkpoint-dir", checkpoints.toString(), "--prometheus-port", "0");
        Set<ListeningSockets.Socket> during = new HashSet<>();
        // Sampled until the job has run long enough to checkpoint: every server it starts is up by then.
        while (train.isAlive() && LatestCheckpoint.newestFirst(checkpoints).isEmpty()) {
            during.addAll(ListeningSockets.ofThisProcess());
            Thread.sleep(100);
        }
        during.addAll(ListeningSockets.ofThisProcess());
        CliRun run = train.awaitCheckpoints(checkpoints, 2).stop(); // one counted complete by the JobManager, surely
        assertEquals(0, run.exitCode(), run.err());

        Set<ListeningSockets.Socket> opened = new HashSet<>(during);
        opened.removeAll(before);
        // REST, BLOB server and the Prometheus reporter at least.
        assertTrue(opened.size() >= 3, "the run's own listening sockets: " + opened);
        List<ListeningSockets.Socket> exposed = during.stream().filter(s -> !s.address().isLoopbackAddress()).toList();
        assertEquals(List.of(), exposed, "listening on more than loopback (all: " + during + ")");
        assertFalse(during.stream().anyMatch(ListeningSockets.Socket::onEveryInterface));
    }

    @Test
    void socketAddressesAreReadAsTheKernelWritesThem() throws Exception {
        assertEquals(new ListeningSockets.Socket(InetAddress.getByName("127.0.0.1"), 8080), ListeningSockets.parse("0100007F:1F90"));
        assertTrue(ListeningSockets.parse("00000000:2431").onEveryInterface());
        assertTrue(ListeningSockets.parse("00000000000000000000000000000000:2431").onEveryInterface());
        assertEquals(InetAddress.getByName("::1"), ListeningSockets.parse("00000000000000000000000001000000:0050").address());
        assertEquals(InetAddress.getByName("127.0.0.1"), ListeningSockets.parse("0000000000000000FFFF00000100007F:0050").address());
    }
}
