package io.streamtrain.train.run;

import io.streamtrain.cluster.LocalCluster;
import io.streamtrain.cluster.Signal;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * Kills and adds TaskManagers of a local cluster on a schedule while a job trains (what
 * {@code demo --chaos} shows): every {@code every}, the newest TaskManager is killed with SIGKILL
 * when more than one runs, otherwise one is added; each change is followed by the time until the
 * job runs again at the parallelism the remaining slots give.
 */
public final class Chaos implements Runnable {
    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(3);

    private final LocalCluster cluster;
    private final Duration every;
    private final int maxTaskManagers;
    private final PrintStream out;
    private volatile boolean stopped;

    public Chaos(LocalCluster cluster, Duration every, int maxTaskManagers, PrintStream out) {
        this.cluster = cluster;
        this.every = every;
        this.maxTaskManagers = maxTaskManagers;
        this.out = out;
    }

    public void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        boolean kill = true;
        try {
            Rescales.awaitRunningAt(cluster.restAddress(), runningTaskManagers() * cluster.slotsPerTaskManager(), RECOVERY_TIMEOUT);
            while (!stopped) {
                Thread.sleep(every.toMillis());
                if (stopped) {
                    return;
                }
                int running = runningTaskManagers();
                String change;
                if ((kill && running > 1) || running >= maxTaskManagers) {
                    change = "killed taskmanager-" + cluster.killTaskManager(OptionalInt.empty(), Signal.KILL) + " (SIGKILL)";
                    running--;
                } else {
                    change = "added taskmanager-" + cluster.addTaskManager();
                    running++;
                }
                kill = !kill;
                int parallelism = running * cluster.slotsPerTaskManager();
                Duration took = Rescales.awaitRunningAt(cluster.restAddress(), parallelism, RECOVERY_TIMEOUT);
                out.printf(Locale.ROOT, "chaos: %s -> job running at parallelism %d after %.1f s%n", change, parallelism, took.toMillis() / 1e3);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            out.println("chaos: stopped: " + e.getMessage());
        }
    }

    private int runningTaskManagers() {
        return (int) cluster.members().stream().filter(m -> m.alive() && m.index() > 0).count();
    }
}
