package io.streamtrain.ps;

import io.streamtrain.ps.message.PullRequest;
import io.streamtrain.ps.message.PulledRows;
import io.streamtrain.ps.message.Push;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;

/**
 * Runs the {@link ParameterServer} with the hooks a function alone lacks: a way to write state under
 * another key than the element's, a write before each checkpoint barrier leaves (the last batches
 * applied, the dense chunks), the row cache's changed rows in operator state at each snapshot (and back into RocksDB
 * on restore), and a full write-back at the end of input.
 */
public final class ParameterServerOperator extends KeyedCoProcessOperator<Integer, PullRequest, Push, PulledRows> {
    private static final long serialVersionUID = 1L;

    private transient ListState<byte[]> changedRows;

    public ParameterServerOperator(ParameterServer parameterServer) {
        super(parameterServer);
    }

    private ParameterServer parameterServer() {
        return (ParameterServer) userFunction;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        changedRows = context.getOperatorStateStore().getUnionListState(PsState.changedRows());
        if (context.isRestored()) {
            List<byte[]> values = new ArrayList<>();
            changedRows.get().forEach(values::add);
            parameterServer().restoreChangedRows(values);
        }
    }

    @Override
    public void open() throws Exception {
        parameterServer().useKeyContext(this);
        super.open();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        parameterServer().writeBackBeforeBarrier();
    }

    /** Runs just before Flink snapshots the operator state and RocksDB, in the same synchronous step. */
    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        changedRows.update(List.of(parameterServer().changedRowsSnapshot()));
    }

    @Override
    public void finish() throws Exception {
        parameterServer().writeBackAll();
        super.finish();
    }
}
