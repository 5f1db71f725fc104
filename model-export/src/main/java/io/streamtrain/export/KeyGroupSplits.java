package io.streamtrain.export;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRange;

/** A subtask's key groups cut into contiguous pieces of nearly equal size, one per reader task. */
final class KeyGroupSplits {
    private KeyGroupSplits() {}

    static List<KeyGroupRange> of(KeyGroupRange range, int pieces) {
        List<KeyGroupRange> splits = new ArrayList<>();
        int groups = range.getNumberOfKeyGroups();
        int n = Math.max(1, Math.min(pieces, groups));
        for (int i = 0; i < n; i++) {
            int from = range.getStartKeyGroup() + (int) ((long) groups * i / n);
            int to = range.getStartKeyGroup() + (int) ((long) groups * (i + 1) / n) - 1;
            if (to >= from) {
                splits.add(new KeyGroupRange(from, to));
            }
        }
        return splits;
    }
}
