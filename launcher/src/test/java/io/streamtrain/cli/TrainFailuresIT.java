package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.testing.KafkaFixture;
import java.io.DataInputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code train} through the real CLI when things go wrong: it ends, says why in one line, and exits non-zero. */
class TrainFailuresIT {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @TempDir
    Path dir;

    @Test
    void aFailureThatRepeatsEndsTheRunWithItsRootCauseOnce() throws Exception {
        String topic = topicWithExamples("repeating-failure", 500);
        // A setting no check can refuse up front: each task fails as it creates its RocksDB directory.
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "x");

        CliRun run = CliRun.of(train(topic, dir.resolve("checkpoints"), "-Dstate.backend.rocksdb.localdir=" + notADirectory.resolve("rocksdb")));

        assertEquals(1, run.exitCode(), run.err());
        String report = errorLine(run.err());
        assertTrue(report.startsWith("streamtrain train: error: training failed after "), report);
        assertTrue(report.contains(notADirectory.resolve("rocksdb").toString()), "the root cause names the directory: " + report);
        assertFalse(run.err().contains("\tat "), "no stack trace without --verbose: " + run.err());
        assertTrue(run.seconds() < 180, "the restarts are bounded: " + run.seconds() + " s");
    }

    @Test
    void resumingFromADamagedCheckpointFailsAtOnceNamingTheFileAndAnOlderCheckpointStillWorks() throws Exception {
        String topic = topicWithExamples("damaged-checkpoint", 2_000);
        Path checkpoints = dir.resolve("checkpoints");
        CliRun first = CliRun.start(train(topic, checkpoints)).awaitCheckpoints(checkpoints, 2).stop();
        assertEquals(0, first.exitCode(), first.err());
        List<Path> retained = LatestCheckpoint.newestFirst(checkpoints);
        Path metadata = retained.get(0).resolve("_metadata");
        try (RandomAccessFile f = new RandomAccessFile(metadata.toFile(), "rw")) {
            f.setLength(f.length() / 2);
        }

        CliRun damaged = CliRun.of(train(topic, checkpoints));

        assertEquals(1, damaged.exitCode(), damaged.err());
        String report = errorLine(damaged.err());
        assertTrue(report.contains(metadata + " cannot be read"), report);
        assertTrue(report.contains("--from-checkpoint " + retained.get(1)), "says what to do: " + report);
        assertFalse(report.contains("null"), report);
        assertTrue(damaged.seconds() < 60, "fails before a job restarts into it: " + damaged.seconds() + " s");

        Path out = dir.resolve("rows.jsonl");
        CliRun export = CliRun.of("export", "--checkpoint", checkpoints.toString(), "--out", out.toString());
        assertEquals(1, export.exitCode(), export.err());
        String exportReport = errorLine(export.err());
        assertTrue(exportReport.contains(metadata + " cannot be read") && exportReport.contains("--savepoint " + retained.get(1)),
                exportReport);
        assertFalse(exportReport.contains("null"), exportReport);
        assertFalse(Files.exists(out), "no empty output file");

        // Two new ones: a _metadata is on disk a moment before the JobManager counts its checkpoint complete.
        CliRun older = CliRun.start(train(topic, checkpoints, "--from-checkpoint", retained.get(1).toString()))
                .awaitCheckpoints(checkpoints, retained.size() + 2).stop();
        assertEquals(0, older.exitCode(), older.err());
        assertTrue(LatestCheckpoint.find(checkpoints).orElseThrow().startsWith(checkpoints.toAbsolutePath()), "trained on");
    }

    @Test
    void anSstFileWithFlippedBytesButItsSizeIsNamedBeforeAnyRestore() throws Exception {
        String topic = topicWithExamples("flipped-sst", 2_000);
        Path checkpoints = dir.resolve("checkpoints");
        // Every SST file in a file of its own, as on real data (so small a table is otherwise inline in _metadata).
        String ownFiles = "-Dexecution.checkpointing.data-inline-threshold=0b";
        CliRun first = CliRun.start(train(topic, checkpoints, ownFiles)).awaitCheckpoints(checkpoints, 2).stop();
        assertEquals(0, first.exitCode(), first.err());
        List<Path> retained = LatestCheckpoint.newestFirst(checkpoints);
        Path sst = anSstFileOf(retained.get(0));
        long size = Files.size(sst);
        try (RandomAccessFile f = new RandomAccessFile(sst.toFile(), "rw")) {
            byte[] middle = new byte[64];
            f.seek(size / 2);
            f.readFully(middle);
            for (int i = 0; i < middle.length; i++) {
                middle[i] ^= (byte) 0xff;
            }
            f.seek(size / 2);
            f.write(middle);
        }
        assertEquals(size, Files.size(sst), "the damage keeps the size, so only the contents can tell");

        CliRun damaged = CliRun.of(train(topic, checkpoints, ownFiles));

        assertEquals(1, damaged.exitCode(), damaged.err());
        String report = errorLine(damaged.err());
        assertTrue(report.contains(sst + " fails its RocksDB checksums"), report);
        assertTrue(report.contains("--from-checkpoint " + retained.get(1)) && report.contains("--from-savepoint"), "says what to do: " + report);
        assertTrue(damaged.seconds() < 30, "fails before a job restarts into it: " + damaged.seconds() + " s");

        Path out = dir.resolve("rows.jsonl");
        CliRun export = CliRun.of("export", "--checkpoint", checkpoints.toString(), "--out", out.toString());
        assertEquals(1, export.exitCode(), export.err());
        String exportReport = errorLine(export.err());
        assertTrue(exportReport.contains(sst + " fails its RocksDB checksums") && exportReport.contains("--savepoint " + retained.get(1)),
                exportReport);
        assertFalse(Files.exists(out), "no output file");
    }

    /** A RocksDB SST file in shared/ that {@code checkpoint}'s _metadata names (the test picks it as Flink would restore it). */
    private static Path anSstFileOf(Path checkpoint) throws Exception {
        CheckpointMetadata metadata;
        try (DataInputStream in = new DataInputStream(Files.newInputStream(checkpoint.resolve("_metadata")))) {
            metadata = Checkpoints.loadCheckpointMetadata(in, TrainFailuresIT.class.getClassLoader(), checkpoint.toUri().toString());
        }
        return metadata.getOperatorStates().stream()
                .flatMap(op -> op.getStates().stream())
                .flatMap(subtask -> subtask.getManagedKeyedState().stream())
                .filter(h -> h instanceof IncrementalRemoteKeyedStateHandle)
                .flatMap(h -> ((IncrementalRemoteKeyedStateHandle) h).getSharedState().stream())
                .filter(f -> f.getLocalPath().endsWith(".sst") && f.getHandle() instanceof FileStateHandle)
                .map(f -> Path.of(((FileStateHandle) f.getHandle()).getFilePath().toUri()))
                .max(Comparator.comparingLong(p -> p.toFile().length()))
                .orElseThrow(() -> new AssertionError("no SST file in a file of its own in " + checkpoint));
    }

    @Test
    void aCheckpointDirectoryThatIsAFileIsSaidSoAndVerbosePrintsTheStackTrace() throws Exception {
        Path file = Files.writeString(dir.resolve("checkpoints"), "not a directory");

        CliRun run = CliRun.of("train", "--topic", "unused", "--bootstrap", kafka.bootstrapServers(), "--checkpoint-dir", file.toString());

        assertEquals(1, run.exitCode(), run.err());
        assertEquals("streamtrain train: error: checkpoint directory " + file + " is a file, not a directory: give"
                + " --checkpoint-dir a directory (it is created if missing)", run.err().strip());

        CliRun verbose = CliRun.of("train", "--verbose", "--topic", "unused", "--checkpoint-dir", file.toString());
        assertEquals(1, verbose.exitCode());
        assertTrue(verbose.err().contains("\tat io.streamtrain.train.run.TrainingRun.run"), verbose.err());
    }

    private String topicWithExamples(String name, int n) throws Exception {
        String topic = name + "-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            CliRun.produceExamples(producer, topic, n);
        }
        return topic;
    }

    private String[] train(String topic, Path checkpoints, String... more) {
        List<String> args = new ArrayList<>(List.of("train", "--bootstrap", kafka.bootstrapServers(), "--topic", topic,
                "--name", topic, "--model", "lr", "--batch-size", "64", "--max-wait", "100ms", "--checkpoint-interval", "1s",
                "--checkpoint-dir", checkpoints.toString(), "--prometheus-port", "off"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /** The launcher's error line (progress lines go to the process's stderr, not the command line's). */
    private static String errorLine(String err) {
        return err.lines().filter(l -> l.contains(": error: ")).findFirst().orElse("(no error line in: " + err + ")");
    }
}
