package io.streamtrain.ps;

import java.io.Serializable;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Lets the job address Flink key groups directly. The PS is keyed by key group ("bucket"), so one
 * pull and one push message carry all of a batch's rows in that key group instead of one message
 * per feature. For each key group g we find an Integer whose Flink key group is exactly g; keying
 * by it makes bucket g live in key group g, which Flink spreads evenly over the subtasks.
 */
public final class KeyGroups implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Key groups when the job sets no max parallelism: the most subtasks a rescale can reach. */
    public static final int DEFAULT_MAX_PARALLELISM = 128;

    private final int maxParallelism;
    private final int[] keyOfGroup;

    public KeyGroups(int maxParallelism) {
        if (Integer.bitCount(maxParallelism) != 1) {
            throw new IllegalArgumentException("max parallelism must be a power of two, got " + maxParallelism);
        }
        this.maxParallelism = maxParallelism;
        this.keyOfGroup = new int[maxParallelism];
        int found = 0;
        boolean[] seen = new boolean[maxParallelism];
        for (int candidate = 0; found < maxParallelism; candidate++) {
            int group = KeyGroupRangeAssignment.assignToKeyGroup(candidate, maxParallelism);
            if (!seen[group]) {
                seen[group] = true;
                keyOfGroup[group] = candidate;
                found++;
            }
        }
    }

    public int maxParallelism() {
        return maxParallelism;
    }

    /** The Integer key that Flink places in key group {@code group}. */
    public int keyOf(int group) {
        return keyOfGroup[group];
    }

    /** The key groups a subtask owns: what it keeps of union list state after a restore or rescale. */
    public static KeyGroupRange ownedBy(TaskInfo task) {
        return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                task.getMaxNumberOfParallelSubtasks(), task.getNumberOfParallelSubtasks(), task.getIndexOfThisSubtask());
    }

    /** The PS bucket of a row key: a well-mixed hash, so hot ids do not cluster. */
    public int bucketOf(long rowKey) {
        return (int) (mix(rowKey) >>> 40) & (maxParallelism - 1);
    }

    /**
     * Key group of a source partition for the batcher and worker: bit reversal (a van der Corput
     * sequence) spreads partitions 0, 1, 2, … exactly evenly over a power-of-two number of subtasks
     * and within a factor of two otherwise, and never depends on the partition count, so a
     * partition's state stays put when the topic grows.
     */
    public int groupOfPartition(int partition) {
        int bits = Integer.numberOfTrailingZeros(maxParallelism);
        int p = partition & (maxParallelism - 1);
        return bits == 0 ? 0 : Integer.reverse(p) >>> (32 - bits);
    }

    public int keyOfPartition(int partition) {
        return keyOf(groupOfPartition(partition));
    }

    /** SplitMix64 finaliser. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
