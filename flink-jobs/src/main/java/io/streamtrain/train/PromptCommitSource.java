package io.streamtrain.train;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A {@link KafkaSource} whose offsets reach Kafka as soon as their checkpoint completes. The Kafka
 * source commits from its fetcher thread, which takes the commit only between two polls, and polls
 * with a fixed 10 s timeout; on a topic with nothing left to read the commit of the last
 * checkpoint waited up to 10 s. Everything that reads a job's progress from its consumer groups
 * (progress lines, {@code --until-idle}, {@code bench}) saw the end of the input that much late.
 * After each completed checkpoint this reader "resumes" its splits, which are not paused: a no-op
 * for the consumer, but Flink's way to wake a fetch in progress, so the queued commit runs at once.
 *
 * <p>A known cost: the wake-up sets the Kafka consumer's wake-up flag, and when it lands just after
 * a poll returned, the next blocking call raises it. That is usually the next poll, which the
 * source handles; but a commit that has to look for the group coordinator first (right after the
 * broker started, or after the coordinator moved) raises it from the source's commit, which fails
 * the task: the job restarts from its latest checkpoint, exactly-once intact (seen once in CI, in
 * {@code SqlTrainingIT}).
 *
 * <p>Splits, serializers and enumerator are the Kafka source's own, so its state and uid stay
 * compatible with jobs that used {@link KafkaSource} directly.
 */
public final class PromptCommitSource<T>
        implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    private final KafkaSource<T> kafka;

    public PromptCommitSource(KafkaSource<T> kafka) {
        this.kafka = kafka;
    }

    @Override
    public Boundedness getBoundedness() {
        return kafka.getBoundedness();
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
        return kafka.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState checkpoint) throws Exception {
        return kafka.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return kafka.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return kafka.getEnumeratorCheckpointSerializer();
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context) throws Exception {
        return new Reader<>(kafka.createReader(context));
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return kafka.getProducedType();
    }

    /** The Kafka reader, plus a wake-up of its fetcher after each completed checkpoint. */
    static final class Reader<T> implements SourceReader<T, KafkaPartitionSplit> {
        private final SourceReader<T, KafkaPartitionSplit> kafka;
        private final Set<String> assigned = new HashSet<>();
        /** Paused by the source operator (watermark alignment): not ours to "resume". */
        private final Set<String> paused = new HashSet<>();

        Reader(SourceReader<T, KafkaPartitionSplit> kafka) {
            this.kafka = kafka;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            kafka.notifyCheckpointComplete(checkpointId); // queues the offset commit on the fetcher
            List<String> running = new ArrayList<>(assigned);
            running.removeAll(paused);
            if (!running.isEmpty()) {
                kafka.pauseOrResumeSplits(List.of(), running);
            }
        }

        @Override
        public void addSplits(List<KafkaPartitionSplit> splits) {
            splits.forEach(s -> assigned.add(s.splitId()));
            kafka.addSplits(splits);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
            paused.addAll(toPause);
            paused.removeAll(toResume);
            kafka.pauseOrResumeSplits(toPause, toResume);
        }

        @Override
        public void start() {
            kafka.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
            return kafka.pollNext(output);
        }

        @Override
        public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
            return kafka.snapshotState(checkpointId);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return kafka.isAvailable();
        }

        @Override
        public void notifyNoMoreSplits() {
            kafka.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent event) {
            kafka.handleSourceEvents(event);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            kafka.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void close() throws Exception {
            kafka.close();
        }
    }
}
