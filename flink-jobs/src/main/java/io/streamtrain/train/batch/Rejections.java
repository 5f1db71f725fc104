package io.streamtrain.train.batch;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.OutputTag;

/** Sends records the job cannot train on to {@link #DEAD_LETTERS}, counted in all and per reason. */
final class Rejections implements Serializable {
    private static final long serialVersionUID = 1L;
    static final OutputTag<Rejected> DEAD_LETTERS = new OutputTag<>("dead-letters") {};

    private transient MetricGroup group;
    private transient Counter deadLetters;
    private transient Map<String, Counter> byReason;

    void open(MetricGroup batcherGroup) {
        group = batcherGroup;
        deadLetters = batcherGroup.counter("deadLetters");
        byReason = new HashMap<>();
    }

    void reject(Rejected record, KeyedProcessFunction<?, ?, ?>.Context ctx) {
        deadLetters.inc();
        byReason.computeIfAbsent(record.reason, r -> group.addGroup("reason", r).counter("deadLetters")).inc();
        ctx.output(DEAD_LETTERS, record);
    }
}
