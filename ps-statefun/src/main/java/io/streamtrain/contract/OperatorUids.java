package io.streamtrain.contract;

/**
 * Operator uids that readers of a training job's checkpoints rely on: the export reads the source's
 * offsets by them. The parameter server's own uid and state names are {@link io.streamtrain.ps.PsState}'s.
 */
public final class OperatorUids {
    /** The training job's examples source: its split state holds the offsets a checkpoint had read. */
    public static final String EXAMPLES_SOURCE = "streamtrain-examples-source";

    private OperatorUids() {}
}
