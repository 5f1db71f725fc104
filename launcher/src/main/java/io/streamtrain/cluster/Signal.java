package io.streamtrain.cluster;

/** How a process is stopped: TERM lets Flink shut down in order, KILL is a crash. */
public enum Signal {
    TERM,
    KILL;

    public void send(ProcessHandle process) {
        if (this == KILL) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
    }
}
