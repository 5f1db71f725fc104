package io.streamtrain.train.batch;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.schema.FeatureKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a closed batch's records into the column-wise {@link MiniBatch} and its pulls: the batch's
 * distinct row keys (plus the bias row, and a deep model's dense chunk rows) grouped by PS key
 * group, so a feature repeated across the batch is pulled, and later pushed, once.
 */
final class BatchAssembler {
    private BatchAssembler() {}

    record Assembled(MiniBatch batch, List<PullRequest> pulls) {}

    /** @param denseKeys the dense chunk rows every batch pulls ({@code DenseChunks}), none for lr and fm */
    static Assembled assemble(KeyGroups keyGroups, long[] denseKeys, int partition, long seq, List<BatchRecord> records) {
        int n = records.size();
        MiniBatch b = new MiniBatch();
        b.sourcePartition = partition;
        b.batchSeq = seq;
        b.firstOffset = records.get(0).offset;
        b.lastOffset = records.get(n - 1).offset;
        b.labels = new float[n];
        b.starts = new int[n + 1];
        int total = 0;
        for (BatchRecord r : records) {
            total += r.keys.length;
        }
        b.keys = new long[total];
        b.values = new float[total];
        int at = 0;
        for (int e = 0; e < n; e++) {
            BatchRecord r = records.get(e);
            b.labels[e] = r.label;
            b.starts[e] = at;
            System.arraycopy(r.keys, 0, b.keys, at, r.keys.length);
            System.arraycopy(r.values, 0, b.values, at, r.values.length);
            at += r.keys.length;
        }
        b.starts[n] = at;

        long[] distinct = distinctWithBias(b.keys);
        long[] pulled = Arrays.copyOf(distinct, distinct.length + denseKeys.length);
        System.arraycopy(denseKeys, 0, pulled, distinct.length, denseKeys.length); // reserved keys: never among the features
        List<PullRequest> pulls = groupByKeyGroup(keyGroups, partition, seq, pulled);
        b.pulls = pulls.size();
        return new Assembled(b, pulls);
    }

    /**
     * The distinct keys and the bias row, in the order first seen (the bias row first). A primitive
     * open-addressing set: sorting every occurrence to find the distinct keys was a sixth of the
     * batcher thread; the few dozen keys of each key group are sorted afterwards instead.
     */
    static long[] distinctWithBias(long[] keys) {
        int slots = Integer.highestOneBit(2 * keys.length + 1) << 1; // at most half full
        int shift = 64 - Integer.numberOfTrailingZeros(slots);
        long[] table = new long[slots];
        long[] occupied = new long[(slots + 63) >>> 6];
        long[] distinct = new long[keys.length + 1];
        int n = 0;
        for (int k = -1; k < keys.length; k++) {
            long key = k < 0 ? FeatureKey.BIAS : keys[k];
            // Fibonacci hashing, linear probing.
            int i = (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
            while ((occupied[i >>> 6] & (1L << i)) != 0 && table[i] != key) {
                i = (i + 1) & (slots - 1);
            }
            if ((occupied[i >>> 6] & (1L << i)) == 0) {
                occupied[i >>> 6] |= 1L << i;
                table[i] = key;
                distinct[n++] = key;
            }
        }
        return Arrays.copyOf(distinct, n);
    }

    /**
     * One pull per key group holding its keys, sorted: sorted keys make pulls (and so pushes) the
     * same on replay, and RocksDB inserts a push's sorted keys next to each other.
     */
    private static List<PullRequest> groupByKeyGroup(KeyGroups keyGroups, int partition, long seq, long[] all) {
        int groups = keyGroups.maxParallelism();
        int[] sizes = new int[groups];
        int[] groupOf = new int[all.length];
        for (int i = 0; i < all.length; i++) {
            groupOf[i] = keyGroups.bucketOf(all[i]);
            sizes[groupOf[i]]++;
        }
        long[][] byGroup = new long[groups][];
        int[] fill = new int[groups];
        List<PullRequest> pulls = new ArrayList<>();
        for (int i = 0; i < all.length; i++) {
            int g = groupOf[i];
            if (byGroup[g] == null) {
                byGroup[g] = new long[sizes[g]];
            }
            byGroup[g][fill[g]++] = all[i];
        }
        for (int g = 0; g < groups; g++) {
            if (byGroup[g] != null) {
                Arrays.sort(byGroup[g]);
                pulls.add(new PullRequest(g, partition, seq, byGroup[g]));
            }
        }
        return pulls;
    }
}
