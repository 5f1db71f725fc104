package io.streamtrain.train.batch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.ps.KeyGroups;
import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.schema.FeatureKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class BatchAssemblerTest {
    @Test
    void distinctKeysComeOnceInTheOrderFirstSeenAfterTheBiasRow() {
        long[] keys = {9, 3, 9, FeatureKey.BIAS, 3, 1, 0, -7, 0};
        assertArrayEquals(new long[] {FeatureKey.BIAS, 9, 3, 1, 0, -7}, BatchAssembler.distinctWithBias(keys));
    }

    @Test
    void distinctKeysOfALargeBatchMatchASet() {
        Random random = new Random(7);
        long[] keys = new long[10_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = random.nextInt(3_000) * 0x100000001L; // many repeats; keys that share low bits
        }
        LinkedHashSet<Long> expected = new LinkedHashSet<>(List.of(FeatureKey.BIAS));
        for (long k : keys) {
            expected.add(k);
        }
        assertArrayEquals(expected.stream().mapToLong(Long::longValue).toArray(), BatchAssembler.distinctWithBias(keys));
    }

    @Test
    void everyDistinctKeyIsPulledOnceFromItsOwnKeyGroup() {
        KeyGroups keyGroups = new KeyGroups(KeyGroups.DEFAULT_MAX_PARALLELISM);
        List<BatchRecord> records = new ArrayList<>();
        TreeSet<Long> distinct = new TreeSet<>(List.of(FeatureKey.BIAS));
        for (int e = 0; e < 50; e++) {
            BatchRecord r = new BatchRecord();
            r.offset = 100 + e;
            r.label = e % 2;
            r.keys = new long[] {FeatureKey.of(0, e % 7), FeatureKey.of(1, e)};
            r.values = new float[] {1f, 0.5f};
            records.add(r);
            for (long k : r.keys) {
                distinct.add(k);
            }
        }
        BatchAssembler.Assembled assembled = BatchAssembler.assemble(keyGroups, new long[0], 2, 5, records);
        assertEquals(100, assembled.batch().keys.length, "every occurrence stays in the batch");
        assertEquals(assembled.pulls().size(), assembled.batch().pulls);
        TreeSet<Long> pulled = new TreeSet<>();
        for (PullRequest pull : assembled.pulls()) {
            long[] sorted = pull.keys.clone();
            Arrays.sort(sorted);
            assertArrayEquals(sorted, pull.keys, "a pull's keys come sorted");
            for (long k : pull.keys) {
                assertEquals(pull.keyGroup, keyGroups.bucketOf(k));
                assertEquals(true, pulled.add(k), "key " + k + " pulled twice");
            }
        }
        assertEquals(distinct, pulled);
    }
}
