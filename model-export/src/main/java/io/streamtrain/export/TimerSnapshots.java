package io.streamtrain.export;

import java.io.IOException;
import org.apache.flink.core.io.PostVersionedIOReadableWritable;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.streaming.api.operators.InternalTimerServiceSerializationProxy;
import org.apache.flink.streaming.api.operators.InternalTimersSnapshotReaderWriters;

/**
 * Reads one key group of an operator's heap timers the way a restore does (the layout of
 * {@link InternalTimerServiceSerializationProxy}: each timer service's name and its timers) and
 * keeps nothing: it only proves the bytes deserialize. The proxy itself cannot be used, as it
 * registers the timers with a running operator's timer service manager.
 */
final class TimerSnapshots extends PostVersionedIOReadableWritable {
    private final ClassLoader classes;

    TimerSnapshots(ClassLoader classes) {
        this.classes = classes;
    }

    @Override
    public int getVersion() {
        return InternalTimerServiceSerializationProxy.VERSION;
    }

    @Override
    protected void read(DataInputView in, boolean wasVersioned) throws IOException {
        int version = wasVersioned ? getReadVersion() : InternalTimersSnapshotReaderWriters.NO_VERSION;
        int services = in.readInt();
        for (int i = 0; i < services; i++) {
            in.readUTF();
            InternalTimersSnapshotReaderWriters.getReaderForVersion(version, classes).readTimersSnapshot(in);
        }
    }

    @Override
    public void write(DataOutputView out) {
        throw new UnsupportedOperationException("only reads");
    }
}
