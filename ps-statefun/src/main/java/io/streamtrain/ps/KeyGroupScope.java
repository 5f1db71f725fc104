package io.streamtrain.ps;

import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * Runs a state access under the key of one PS key group: a row of any key group may have to be
 * written (a write-back, an evicted row, a restored row, the last batch applied) while another key
 * group's element is handled. Needs the operator's key context, so the PS runs in a
 * {@link ParameterServerOperator}.
 */
final class KeyGroupScope {
    private final KeyContext keyContext;
    private final KeyGroups keyGroups;

    KeyGroupScope(KeyContext keyContext, KeyGroups keyGroups) {
        this.keyContext = keyContext;
        this.keyGroups = keyGroups;
    }

    KeyGroups keyGroups() {
        return keyGroups;
    }

    /** Runs {@code access} with the current key set to key group {@code group}'s, then restores the element's key. */
    void run(int group, ThrowingRunnable<Exception> access) throws Exception {
        Object current = keyContext.getCurrentKey();
        Integer key = keyGroups.keyOf(group);
        if (key.equals(current)) {
            access.run();
            return;
        }
        keyContext.setCurrentKey(key);
        try {
            access.run();
        } finally {
            if (current != null) {
                keyContext.setCurrentKey(current);
            }
        }
    }
}
