package io.streamtrain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real TaskManager processes: one that dies on its own is replaced, one stopped on purpose is not. */
class TaskManagerReplacementIT {
    @Test
    void onlyTaskManagersThatExitedOnTheirOwnAreReplacedOnce(@TempDir Path dir) throws Exception {
        LocalCluster cluster = LocalCluster.start(dir, 1, 1, MemorySize.parse("1g"), new Configuration());
        try {
            // Right after its start a TaskManager may still show its parent's command line (before
            // exec): it must not pass for a crashed one (ElasticIT once got a needless replacement).
            assertEquals(List.of(), cluster.replaceCrashedTaskManagers(), "a TaskManager just started is not a crash");
            ProcessHandle first = awaitAlive(cluster, 1);
            first.destroyForcibly(); // a crash: nobody asked the cluster to stop it
            first.onExit().get(30, TimeUnit.SECONDS);

            assertEquals(List.of("taskmanager-1 -> taskmanager-2"), cluster.replaceCrashedTaskManagers());
            assertTrue(alive(cluster, 2), "the replacement runs");
            assertEquals(List.of(), cluster.replaceCrashedTaskManagers(), "a crashed TaskManager is replaced once");

            cluster.killTaskManager(OptionalInt.of(2), Signal.KILL);
            assertEquals(List.of(), cluster.replaceCrashedTaskManagers(), "kill-tm is on purpose");

            cluster.addTaskManager();
            cluster.stop(Duration.ofSeconds(30));
            assertEquals(List.of(), cluster.replaceCrashedTaskManagers(), "nor is a stopped cluster restarted");
            assertTrue(cluster.members().stream().noneMatch(LocalCluster.Member::alive));
        } finally {
            cluster.stop(Duration.ofSeconds(30));
        }
    }

    private static ProcessHandle awaitAlive(LocalCluster cluster, int index) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (LocalCluster.Member m : cluster.members()) {
                if (m.index() == index && m.alive()) {
                    return m.process().orElseThrow();
                }
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("taskmanager-" + index + " is not running");
    }

    private static boolean alive(LocalCluster cluster, int index) {
        return cluster.members().stream().anyMatch(m -> m.index() == index && m.alive());
    }
}
