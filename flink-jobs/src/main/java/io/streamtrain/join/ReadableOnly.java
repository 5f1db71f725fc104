package io.streamtrain.join;

import io.streamtrain.ingest.DeadLetters;
import io.streamtrain.train.batch.Rejected;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/** Passes decodable events on and sends the rest to the dead-letter side output (chained to the source). */
public class ReadableOnly extends ProcessFunction<JoinEvent, JoinEvent> {
    private static final long serialVersionUID = 1L;
    public static final OutputTag<Rejected> DEAD_LETTERS = new OutputTag<>("join-unreadable") {};
    private transient Counter unreadable;

    @Override
    public void open(OpenContext context) {
        unreadable = getRuntimeContext().getMetricGroup().counter("join.unreadableRecords");
    }

    @Override
    public void processElement(JoinEvent e, Context ctx, Collector<JoinEvent> out) {
        if (e.kind != JoinEvent.UNREADABLE) {
            out.collect(e);
            return;
        }
        unreadable.inc();
        ctx.output(DEAD_LETTERS, new Rejected(e.topic, DeadLetters.recordLocation(e.partition, e.offset), e.reason,
                e.detail, e.value, System.currentTimeMillis()));
    }
}
