package io.streamtrain.serve;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.contract.RowVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One poll's model updates reduced to what a serving store must write: per row the update that
 * supersedes the others ({@link RowVersion#supersedes}: the highest version; of unversioned ones the
 * last), kept only if it supersedes what the store holds. Versioned updates may come twice or out of
 * order (a recovery publishes again what it recomputes, at the same version), so a served row never
 * moves back and never takes an update twice.
 */
final class NewestUpdates {
    private final Map<Long, Bundle.RowUpdate> newest = new LinkedHashMap<>();
    private int offered;

    /** An update of row {@code key} at {@code version} ({@link RowVersion#NONE}: unversioned), in topic order. */
    void add(long key, float[] weights, long version) {
        offered++;
        newest.merge(key, new Bundle.RowUpdate(weights, version),
                (held, next) -> RowVersion.supersedes(next.version(), held.version()) ? next : held);
    }

    /** Updates offered so far, duplicates included. */
    int offered() {
        return offered;
    }

    /** The newest updates that supersede the versions {@code held} (the store's, in the order of {@code keys}). */
    Map<Long, Bundle.RowUpdate> newerThan(List<Long> keys, long[] held) {
        Map<Long, Bundle.RowUpdate> result = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            Bundle.RowUpdate update = newest.get(keys.get(i));
            if (RowVersion.supersedes(update.version(), held[i])) {
                result.put(keys.get(i), update);
            }
        }
        return result;
    }

    /** The rows updated, in the order they were first offered. */
    List<Long> keys() {
        return new ArrayList<>(newest.keySet());
    }

    /** What of these updates {@code store} must write. */
    Map<Long, Bundle.RowUpdate> newerThanIn(Bundle store) {
        List<Long> keys = keys();
        return newerThan(keys, store.versions(keys));
    }
}
