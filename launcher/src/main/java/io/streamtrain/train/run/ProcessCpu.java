package io.streamtrain.train.run;

import java.lang.management.ManagementFactory;

/** This JVM's CPU time: with a job run in-process (the bench's), what the job, its broker, the JIT and GC cost the machine. */
public final class ProcessCpu {
    private ProcessCpu() {}

    /** CPU ns this JVM has used so far, all threads. */
    public static long nanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
