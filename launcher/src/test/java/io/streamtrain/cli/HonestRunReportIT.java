package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.testing.KafkaFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamtrain train} reports what its own run trained, through the real CLI on a real broker
 * and a local Flink: after an earlier run of the same name on the same topic has committed its
 * consumer groups' offsets, a fresh run's progress starts at zero, never goes backwards and ends
 * at every record of the topic with a rate that is not negative; and a run whose job cannot
 * complete a checkpoint exits non-zero without a summary instead of stopping "idle" on the earlier
 * run's offsets.
 */
class HonestRunReportIT {
    static final KafkaFixture kafka = KafkaFixture.shared();
    static final Pattern SUMMARY = Pattern.compile("summary: records=(\\d+) examples_per_s=(-?\\d+) .* checkpoints=(\\d+) .*");
    static final Pattern PROGRESS = Pattern.compile("train: t=\\d+s records=(-?\\d+) .*");
    static final int EARLIER = 3000;
    static final int LATER = 2000;

    @TempDir
    static Path dir;
    static String topic;

    record Run(int exitCode, String out, String err) {
        Matcher summary() {
            Matcher m = SUMMARY.matcher(out.strip());
            assertTrue(m.find(), "a summary line: " + out + err);
            return m;
        }

        List<Long> progressRecords() {
            List<Long> records = new ArrayList<>();
            for (String line : err.split("\n")) {
                Matcher m = PROGRESS.matcher(line.strip());
                if (m.matches()) {
                    records.add(Long.parseLong(m.group(1)));
                }
            }
            return records;
        }
    }

    /** The earlier run: it trains the topic and commits its offsets to the model's consumer groups. */
    @BeforeAll
    static void anEarlierRunTrainsTheTopic() {
        topic = "honest-" + System.nanoTime();
        Run ingest = cli("ingest", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--partitions", "4",
                "--synthetic", String.valueOf(EARLIER), "--seed", "1", "--truth", dir.resolve("truth-1.json").toString());
        assertEquals(0, ingest.exitCode(), ingest.err());
        Run earlier = train("earlier");
        assertEquals(0, earlier.exitCode(), earlier.err());
        assertEquals(EARLIER, Long.parseLong(earlier.summary().group(1)), earlier.out());
    }

    @Test
    void aFreshRunCountsOnlyWhatItTrainedInItsOwnCheckpoints() {
        Run ingest = cli("ingest", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--partitions", "4",
                "--synthetic", String.valueOf(LATER), "--seed", "2", "--truth", dir.resolve("truth-2.json").toString());
        assertEquals(0, ingest.exitCode(), ingest.err());

        Run fresh = train("fresh");
        assertEquals(0, fresh.exitCode(), fresh.err());
        Matcher summary = fresh.summary();
        assertEquals(EARLIER + LATER, Long.parseLong(summary.group(1)), "a fresh start trains the whole topic: " + fresh.out());
        assertTrue(Long.parseLong(summary.group(2)) >= 0, "examples/s is never negative: " + fresh.out());
        assertTrue(Long.parseLong(summary.group(3)) >= 1, "checkpoints: " + fresh.out());

        List<Long> progress = fresh.progressRecords();
        assertFalse(progress.isEmpty(), fresh.err());
        assertEquals(0, progress.get(0), "the first progress line, right after the job was submitted, shows none of the earlier run's records: " + fresh.err());
        for (int i = 1; i < progress.size(); i++) {
            assertTrue(progress.get(i) >= progress.get(i - 1), "records never go backwards: " + progress);
        }
    }

    @Test
    void aRunThatNeverCheckpointsFailsInsteadOfReportingTheEarlierRunsOffsets() {
        // The job fails in every attempt (the optimizer is created when the PS opens) and so never
        // completes a checkpoint; the earlier run left the topic's end in the consumer groups.
        Run failing = train("failing", "--optimizer", "adamw",
                "-D", "restart-strategy.type=fixed-delay",
                "-D", "restart-strategy.fixed-delay.attempts=6",
                "-D", "restart-strategy.fixed-delay.delay=1s");
        assertNotEquals(0, failing.exitCode(), failing.out() + failing.err());
        assertFalse(failing.out().contains("summary:"), "no success summary: " + failing.out());
    }

    /** {@code train} of the topic under the model name shared by every run here, into a checkpoint directory of its own. */
    static Run train(String checkpoints, String... more) {
        List<String> args = new ArrayList<>(List.of("train", "--bootstrap", kafka.bootstrapServers(), "--topic", topic,
                "--name", topic, "--dim", "4", "--batch-size", "256", "--checkpoint-interval", "1s", "--until-idle", "1s",
                "--parallelism", "2", "--prometheus-port", "off", "--checkpoint-dir", dir.resolve(checkpoints).toString()));
        args.addAll(List.of(more));
        return cli(args.toArray(String[]::new));
    }

    /** Runs the launcher's command line as {@code streamtrain ARGS} does, capturing what it prints. */
    static synchronized Run cli(String... args) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = StreamtrainCli.commandLine().execute(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            stderr.print(err.toString(StandardCharsets.UTF_8));
        }
    }
}
