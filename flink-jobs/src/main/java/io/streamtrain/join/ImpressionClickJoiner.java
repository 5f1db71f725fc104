package io.streamtrain.join;

import io.streamtrain.ingest.DeadLetters;
import io.streamtrain.ingest.format.RecordDecoder;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.MappingException;
import io.streamtrain.ingest.mapping.RawRecord;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Impression;
import io.streamtrain.train.batch.Rejected;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The online join, keyed by impression id, in event time. Input 1 is impressions, input 2 clicks.
 * <ul>
 *   <li>An impression opens a window [t, t + window]. The first click inside it emits the example
 *       with label 1 at once; when the watermark passes t + window without one, the example goes
 *       out with label 0 (if the negative sampler keeps it, with {@code sample_rate} = the rate).
 *   <li>A decided impression stays as a tombstone for the dedup retention: a second impression
 *       with its id is dropped, a second click inside the window is dropped (both counted), a
 *       click inside the window that arrives after a 0 went out is a {@code late-click}.
 *   <li>A click before its impression waits; when the watermark passes the click's time without
 *       the impression (impressions precede their clicks), it is a {@code click-without-impression}.
 *   <li>A click earlier than its impression's time is a {@code click-without-impression} too
 *       (attribution needs an impression at or before the click); one after the window is a
 *       {@code click-outside-window}. An impression behind the watermark: {@code late-impression}.
 * </ul>
 * Each click is judged on its own, in arrival order. State, timers and emitted examples are all
 * covered by checkpoints and the sinks are transactional, so a restart replays to the same result.
 */
public class ImpressionClickJoiner extends KeyedCoProcessFunction<String, JoinEvent, JoinEvent, JoinedExample>
        implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;
    public static final OutputTag<Rejected> DEAD_LETTERS = new OutputTag<>("join-dead-letters") {};

    private final long windowMs;
    private final long retentionMs;
    private final NegativeSampler sampler;
    private final FeatureMapping mapping;
    /** The impressions' format when it is the user's own; null for Avro Impression records. */
    private final RecordDecoder userFormat;
    private final long injectFailureAfter;

    private transient ValueState<OpenImpression> impression;
    private transient ListState<JoinEvent> pendingClicks;
    private transient ListState<Long> backlogState;
    private transient AvroCodec<Impression> impressions;
    private transient AvroCodec<Example> examples;
    private transient Metrics metrics;
    private transient long backlog;
    private transient long eventsSeen;
    private transient boolean checkpointCompleted;

    public ImpressionClickJoiner(long windowMs, long retentionMs, NegativeSampler sampler, FeatureMapping mapping, RecordDecoder userFormat,
            long injectFailureAfter) {
        if (windowMs <= 0 || retentionMs < 0) {
            throw new IllegalArgumentException("window must be > 0 and dedup retention >= 0");
        }
        this.windowMs = windowMs;
        this.retentionMs = retentionMs;
        this.sampler = sampler;
        this.mapping = mapping;
        this.userFormat = userFormat;
        this.injectFailureAfter = injectFailureAfter;
    }

    @Override
    public void open(OpenContext context) {
        impression = getRuntimeContext().getState(new ValueStateDescriptor<>("impression", TypeInformation.of(OpenImpression.class)));
        pendingClicks = getRuntimeContext().getListState(new ListStateDescriptor<>("pending-clicks", TypeInformation.of(JoinEvent.class)));
        impressions = AvroCodec.of(Impression.class);
        examples = AvroCodec.of(Example.class);
        metrics = new Metrics(getRuntimeContext().getMetricGroup(), () -> backlog);
    }

    @Override
    public void processElement1(JoinEvent e, Context ctx, Collector<JoinedExample> out) throws Exception {
        maybeInjectFailure();
        metrics.impressions.inc();
        if (impression.value() != null) {
            metrics.duplicateImpressions.inc();
            return;
        }
        long watermark = ctx.timerService().currentWatermark();
        if (e.time <= watermark) {
            deadLetter(ctx, e, JoinReject.LATE_IMPRESSION, "impression at " + Instant.ofEpochMilli(e.time)
                    + " is behind the watermark " + Instant.ofEpochMilli(watermark));
            metrics.lateImpressions.inc();
            return;
        }
        byte[] unlabelled;
        try {
            unlabelled = examples.encode(userFormat == null ? unlabelled(impressions.decode(e.value)) : unlabelled(e));
        } catch (MappingException m) {
            deadLetter(ctx, e, JoinReject.UNMAPPABLE_IMPRESSION, m.reason().code() + ": " + m.getMessage());
            return;
        }
        OpenImpression open = new OpenImpression(e.time, unlabelled);
        backlog++;
        ctx.timerService().registerEventTimeTimer(windowEnd(open));
        for (JoinEvent click : pendingClicks.get()) {
            judge(click, open, ctx, out);
        }
        pendingClicks.clear();
        impression.update(open);
    }

    @Override
    public void processElement2(JoinEvent click, Context ctx, Collector<JoinedExample> out) throws Exception {
        maybeInjectFailure();
        metrics.clicks.inc();
        OpenImpression open = impression.value();
        if (open == null) {
            long watermark = ctx.timerService().currentWatermark();
            if (click.time <= watermark) { // its impression would have arrived by now
                metrics.clicksWithoutImpression.inc();
                deadLetter(ctx, click, JoinReject.CLICK_WITHOUT_IMPRESSION, "no impression with this id by watermark "
                        + Instant.ofEpochMilli(watermark));
                return;
            }
            pendingClicks.add(click);
            ctx.timerService().registerEventTimeTimer(click.time);
            return;
        }
        judge(click, open, ctx, out);
        impression.update(open);
    }

    /** Decides one click against its impression (open or tombstone); the caller stores {@code open}. */
    private void judge(JoinEvent click, OpenImpression open, Context ctx, Collector<JoinedExample> out) throws IOException {
        long delay = click.time - open.time;
        if (delay < 0) {
            // Attribution needs an impression at or before the click: judged the same whether the
            // impression arrived before the click or the click waited for it.
            metrics.clicksWithoutImpression.inc();
            deadLetter(ctx, click, JoinReject.CLICK_WITHOUT_IMPRESSION, "the impression with this id is " + (-delay)
                    + " ms after the click");
        } else if (delay > windowMs) {
            metrics.clicksOutsideWindow.inc();
            deadLetter(ctx, click, JoinReject.CLICK_OUTSIDE_WINDOW, "click " + delay + " ms after its impression; window "
                    + windowMs + " ms");
        } else if (open.clicked) {
            metrics.duplicateClicks.inc();
        } else if (open.closed) {
            metrics.lateClicks.inc();
            deadLetter(ctx, click, JoinReject.LATE_CLICK, "click " + delay + " ms after its impression arrived after the"
                    + " window closed (watermark " + ctx.timerService().currentWatermark() + ")");
        } else {
            out.collect(labelled(open, 1f, 1f, click.time));
            metrics.positives.inc();
            metrics.joinedClicks.inc();
            open.clicked = true;
            decide(open, ctx);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<JoinedExample> out) throws Exception {
        maybeInjectFailure();
        OpenImpression open = impression.value();
        if (open == null) {
            List<JoinEvent> waiting = new ArrayList<>();
            for (JoinEvent click : pendingClicks.get()) {
                if (click.time <= timestamp) {
                    metrics.clicksWithoutImpression.inc();
                    deadLetter(ctx, click, JoinReject.CLICK_WITHOUT_IMPRESSION, "no impression with this id by watermark "
                            + Instant.ofEpochMilli(timestamp));
                } else {
                    waiting.add(click);
                }
            }
            pendingClicks.update(waiting);
            return;
        }
        if (!open.closed && timestamp >= windowEnd(open)) {
            if (sampler.keep(ctx.getCurrentKey())) {
                out.collect(labelled(open, 0f, (float) sampler.rate(), windowEnd(open)));
                metrics.negatives.inc();
            } else {
                metrics.negativesSampledOut.inc();
            }
            decide(open, ctx);
            impression.update(open);
        } else if (open.closed && timestamp >= windowEnd(open) + retentionMs) {
            impression.clear();
        }
    }

    /** The impression is decided: keep only a tombstone until the dedup retention ends. */
    private void decide(OpenImpression open, Context ctx) {
        open.closed = true;
        open.example = null;
        backlog--;
        ctx.timerService().registerEventTimeTimer(windowEnd(open) + retentionMs);
    }

    private long windowEnd(OpenImpression open) {
        return open.time + windowMs;
    }

    private Example unlabelled(Impression i) throws MappingException {
        RawRecord raw = column -> switch (column) {
            case "impression_id" -> i.getImpressionId();
            case "user_id" -> i.getUserId();
            case "item_id" -> i.getItemId();
            case "event_time" -> i.getEventTime().toEpochMilli();
            default -> i.getContext().get(column);
        };
        return new Example(i.getImpressionId(), i.getEventTime(), 0f, mapping.features(raw), List.of(), 1f);
    }

    /** An impression in the user's format, read again (the source checked it reads) for its features. */
    private Example unlabelled(JoinEvent e) throws MappingException {
        return new Example(e.impressionId, Instant.ofEpochMilli(e.time), 0f, mapping.features(userFormat.read(e.value).raw()), List.of(), 1f);
    }

    private JoinedExample labelled(OpenImpression open, float label, float sampleRate, long decidedAt) throws IOException {
        Example e = examples.decode(open.example);
        e.setLabel(label);
        e.setSampleRate(sampleRate);
        return new JoinedExample(e.getId(), decidedAt, examples.encode(e));
    }

    private void deadLetter(Context ctx, JoinEvent e, JoinReject reason, String detail) {
        ctx.output(DEAD_LETTERS, new Rejected(e.topic, DeadLetters.recordLocation(e.partition, e.offset), reason.code(),
                detail, e.value, System.currentTimeMillis()));
    }

    /**
     * Fails the first attempt after N events or timers once a checkpoint completed (so the restart
     * restores one), or after 2N in any case (a short bounded run may finish before its first checkpoint).
     */
    private void maybeInjectFailure() {
        if (injectFailureAfter > 0
                && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0
                && ++eventsSeen >= injectFailureAfter
                && (checkpointCompleted || eventsSeen >= 2 * injectFailureAfter)) {
            throw new InjectedFailure("injected failure after " + eventsSeen + " events and timers (--inject-failure-after "
                    + injectFailureAfter + ")");
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        checkpointCompleted = true;
    }

    /** The open-window count survives restarts as operator state: exact summed over subtasks, per subtask approximate after a rescale. */
    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        backlogState.update(List.of(backlog));
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        backlogState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("window-backlog", Types.LONG));
        backlog = 0;
        for (Long b : backlogState.get()) {
            backlog += b;
        }
    }

    /** What --inject-failure-after throws; the job restarts from its latest checkpoint. */
    public static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }

    /** The join metrics (docs/metrics.md). */
    private static final class Metrics {
        final Counter impressions;
        final Counter clicks;
        final Counter positives;
        final Counter negatives;
        final Counter negativesSampledOut;
        final Counter duplicateImpressions;
        final Counter duplicateClicks;
        final Counter lateImpressions;
        final Counter lateClicks;
        final Counter clicksWithoutImpression;
        final Counter clicksOutsideWindow;
        final Counter joinedClicks;

        Metrics(MetricGroup g, Gauge<Long> backlog) {
            impressions = g.counter("join.impressions");
            clicks = g.counter("join.clicks");
            positives = g.counter("join.positives");
            negatives = g.counter("join.negatives");
            negativesSampledOut = g.counter("join.negativesSampledOut");
            duplicateImpressions = g.counter("join.duplicateImpressions");
            duplicateClicks = g.counter("join.duplicateClicks");
            lateImpressions = g.counter("join.lateImpressions");
            lateClicks = g.counter("join.lateClicks");
            clicksWithoutImpression = g.counter("join.clicksWithoutImpression");
            clicksOutsideWindow = g.counter("join.clicksOutsideWindow");
            joinedClicks = g.counter("join.joinedClicks");
            g.gauge("join.windowBacklog", backlog);
            g.gauge("join.joinRate", () -> {
                long decided = joinedClicks.getCount() + lateClicks.getCount() + clicksWithoutImpression.getCount()
                        + clicksOutsideWindow.getCount();
                return decided == 0 ? Double.NaN : joinedClicks.getCount() / (double) decided;
            });
        }
    }
}
