package io.streamtrain.train.batch;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.schema.FeatureKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a closed batch's records into the column-wise {@link MiniBatch} and its pulls: the batch's
 * distinct row keys (plus the bias row) grouped by PS key group, so a feature repeated across the
 * batch is pulled, and later pushed, once.
 */
final class BatchAssembler {
    private BatchAssembler() {}

    record Assembled(MiniBatch batch, List<PullRequest> pulls) {}

    static Assembled assemble(KeyGroups keyGroups, int partition, long seq, List<BatchRecord> records) {
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

        List<PullRequest> pulls = groupByKeyGroup(keyGroups, partition, seq, distinctWithBias(b.keys));
        b.pulls = pulls.size();
        return new Assembled(b, pulls);
    }

    /**
     * The distinct keys and the bias row, sorted: sorted keys make pulls (and so pushes)
     * byte-identical on replay. Sorting primitives beats a boxed hash set at ~10k keys a batch.
     */
    static long[] distinctWithBias(long[] keys) {
        long[] all = Arrays.copyOf(keys, keys.length + 1);
        all[keys.length] = FeatureKey.BIAS;
        Arrays.sort(all);
        int distinct = 0;
        for (int i = 0; i < all.length; i++) {
            if (i == 0 || all[i] != all[i - 1]) {
                all[distinct++] = all[i];
            }
        }
        return Arrays.copyOf(all, distinct);
    }

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
                pulls.add(new PullRequest(g, partition, seq, byGroup[g]));
            }
        }
        return pulls;
    }
}
