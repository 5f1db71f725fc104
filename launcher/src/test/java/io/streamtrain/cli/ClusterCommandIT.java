package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.cluster.LocalCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code cluster} subcommands on real TaskManager processes: start, add, kill, status, stop, and their errors. */
class ClusterCommandIT {
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void startAddKillStatusStopManageRealProcesses(@TempDir Path dir) throws Exception {
        try {
            Result start = run("cluster", "start", "--dir", dir.toString(), "--taskmanagers", "2", "--tm-memory", "1g");
            assertEquals(0, start.code, start.err);
            assertEquals(List.of(1, 2), runningTaskManagers(dir));

            Result add = run("cluster", "add-tm", "--dir", dir.toString());
            assertEquals(0, add.code, add.err);
            assertEquals(List.of(1, 2, 3), runningTaskManagers(dir));

            Result kill = run("cluster", "kill-tm", "--dir", dir.toString(), "--index", "2", "--signal", "KILL");
            assertEquals(0, kill.code, kill.err);
            assertTrue(kill.out.contains("taskmanager-2"), kill.out);
            awaitExit(dir, 2);
            assertEquals(List.of(1, 3), runningTaskManagers(dir));

            Result status = run("cluster", "status", "--dir", dir.toString());
            assertTrue(status.out.contains("taskmanager-1") && status.out.contains("taskmanager-3"), status.out);
            assertTrue(status.out.contains("exited"), "the killed TaskManager shows as exited: " + status.out);
            assertTrue(status.out.contains("job: none running"), status.out);

            Result again = run("cluster", "start", "--dir", dir.toString());
            assertEquals(1, again.code, "a second start on a running cluster is refused");
            assertTrue(again.err.contains("already running"), again.err);

            Result unknown = run("cluster", "kill-tm", "--dir", dir.toString(), "--index", "9");
            assertEquals(1, unknown.code);
            assertTrue(unknown.err.contains("no running taskmanager-9"), unknown.err);

            Result stop = run("cluster", "stop", "--dir", dir.toString());
            assertEquals(0, stop.code, stop.err);
            assertEquals(List.of(), runningTaskManagers(dir));
        } finally {
            LocalCluster.open(dir).stop(Duration.ofSeconds(5));
        }
        Result missing = run("cluster", "status", "--dir", dir.resolve("nothing").toString());
        assertEquals(1, missing.code);
        assertTrue(missing.err.contains("no cluster in"), missing.err);
    }

    private static List<Integer> runningTaskManagers(Path dir) {
        return LocalCluster.open(dir).members().stream().filter(m -> m.alive() && m.index() > 0).map(LocalCluster.Member::index).toList();
    }

    private static void awaitExit(Path dir, int index) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (runningTaskManagers(dir).contains(index) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = StreamtrainCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(captured, true));
        try {
            int code = cli.execute(args);
            return new Result(code, out + captured.toString(), err.toString());
        } finally {
            System.setOut(stdout);
        }
    }
}
