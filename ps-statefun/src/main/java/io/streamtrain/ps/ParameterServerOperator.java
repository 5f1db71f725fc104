package io.streamtrain.ps;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;

/**
 * Runs the {@link ParameterServer} and writes its changed rows back to RocksDB where Flink lets an
 * operator still change keyed state for a snapshot: before each checkpoint barrier leaves it, and at
 * the end of input. A function alone has neither hook nor a way to write under another key.
 */
public final class ParameterServerOperator extends KeyedCoProcessOperator<Integer, PullRequest, Push, PulledRows> {
    private static final long serialVersionUID = 1L;

    public ParameterServerOperator(ParameterServer parameterServer) {
        super(parameterServer);
    }

    @Override
    public void open() throws Exception {
        ((ParameterServer) userFunction).useKeyContext(this);
        super.open();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        ((ParameterServer) userFunction).writeBackChangedRows();
    }

    @Override
    public void finish() throws Exception {
        ((ParameterServer) userFunction).writeBackChangedRows();
        super.finish();
    }
}
