package io.streamtrain.cli;

import static io.streamtrain.cli.HonestRunReportIT.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.cluster.SessionClusterFixture;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.testing.KafkaFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train}, {@code backfill} and {@code join} with {@code --jobmanager}: each uploads the job
 * jar to a real session cluster of separate JVMs (Flink's own modules on its class path, nothing
 * of the project's) and then behaves as it does locally: progress lines, the summary line, and
 * stopping by itself ({@code --until-idle}, a backfill's range end, {@code --until-end}).
 */
class SessionCommandsIT {
    private static final int BACKFILLED = 3_000;
    private static final int STREAMED = 2_000;
    private static final int IMPRESSIONS = 1_000;
    private static final Pattern JOIN_SUMMARY = Pattern.compile("join: impressions=(\\d+) clicks=(\\d+) examples=(\\d+) .*");

    private static final KafkaFixture kafka = KafkaFixture.shared();

    @TempDir
    static Path dir;

    private static SessionClusterFixture session;

    @BeforeAll
    static void startTheSessionCluster() throws Exception {
        session = SessionClusterFixture.start(dir.resolve("cluster"), 1, 2);
    }

    @AfterAll
    static void stopTheSessionCluster() throws Exception {
        if (session != null) {
            session.close();
        }
    }

    @Test
    void aBackfillOnTheSessionClusterIsContinuedByTrainingThere() {
        String topic = "session-" + System.nanoTime();
        ingest(topic, BACKFILLED, 1);
        Path out = dir.resolve("backfill");
        HonestRunReportIT.Run backfill = cli(job("backfill", topic, "--out-savepoint", out.toString()));
        assertEquals(0, backfill.exitCode(), backfill.out() + backfill.err());
        assertEquals(BACKFILLED, Long.parseLong(backfill.summary().group(1)), backfill.out());
        assertTrue(backfill.err().contains("on session cluster " + session.restAddress()), backfill.err());
        assertTrue(backfill.err().contains("backfill: t="), "progress lines: " + backfill.err());

        ingest(topic, STREAMED, 2);
        Path checkpoints = dir.resolve("train");
        HonestRunReportIT.Run train = cli(job("train", topic, "--from-savepoint", out.toString(), "--checkpoint-dir", checkpoints.toString(),
                "--until-idle", "1s", "--prometheus-port", "off"));
        assertEquals(0, train.exitCode(), train.out() + train.err());
        assertEquals(STREAMED, Long.parseLong(train.summary().group(1)), "streaming goes on where the backfill ended: " + train.out());
        assertTrue(train.err().contains("on session cluster " + session.restAddress()), train.err());
        assertTrue(!train.progressRecords().isEmpty(), "progress lines: " + train.err());
        assertEquals(topic, assertDoesNotThrowRead(checkpoints).topic(), "the job recorded its model beside its checkpoints");
    }

    @Test
    void theJoinerRunsOnTheSessionClusterUntilTheEndOfItsInput() {
        String t = "session-join-" + System.nanoTime();
        HonestRunReportIT.Run events = cli("ingest", "--bootstrap", kafka.bootstrapServers(), "--synthetic-events", String.valueOf(IMPRESSIONS),
                "--seed", "3", "--impressions", t + ".impressions", "--clicks", t + ".clicks", "--truth", dir.resolve(t + ".json").toString(),
                "--window", "1m", "--interval", "50ms", "--click-delay", "10s", "--ctr", "0.2", "--duplicates", "0", "--beyond-window", "0");
        assertEquals(0, events.exitCode(), events.err());
        HonestRunReportIT.Run join = cli("join", "--bootstrap", kafka.bootstrapServers(), "--impressions", t + ".impressions",
                "--clicks", t + ".clicks", "--out", t + ".out", "--name", t, "--window", "1m", "--until-end",
                "--checkpoint-interval", "1s", "--checkpoint-dir", dir.resolve(t).toString(), "--jobmanager", session.jobManager());
        assertEquals(0, join.exitCode(), join.out() + join.err());
        Matcher summary = JOIN_SUMMARY.matcher(join.out().strip());
        assertTrue(summary.find(), join.out() + join.err());
        assertEquals(IMPRESSIONS, Long.parseLong(summary.group(1)), join.out());
        assertEquals(IMPRESSIONS, Long.parseLong(summary.group(3)), "one example per impression: " + join.out());
        assertTrue(join.err().contains("on session cluster " + session.restAddress()), join.err());
    }

    private static ModelInfo assertDoesNotThrowRead(Path checkpoints) {
        try {
            return ModelInfo.read(checkpoints);
        } catch (Exception e) {
            throw new AssertionError("no model.json in " + checkpoints, e);
        }
    }

    private static String[] job(String command, String topic, String... more) {
        List<String> args = new ArrayList<>(List.of(command, "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--name", topic,
                "--dim", "4", "--batch-size", "256", "--checkpoint-interval", "1s", "--parallelism", "2",
                "--jobmanager", session.jobManager()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static void ingest(String topic, int examples, int seed) {
        HonestRunReportIT.Run ingest = cli("ingest", "--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--partitions", "4",
                "--synthetic", String.valueOf(examples), "--seed", String.valueOf(seed),
                "--truth", dir.resolve(topic + "-" + seed + ".json").toString());
        assertEquals(0, ingest.exitCode(), ingest.err());
    }
}
