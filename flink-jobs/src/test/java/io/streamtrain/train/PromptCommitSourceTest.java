package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The reader's own part: after a completed checkpoint, a wake-up that resumes only running splits. */
class PromptCommitSourceTest {
    @Test
    void aCompletedCheckpointQueuesTheCommitThenWakesTheFetcherThroughItsRunningSplits() throws Exception {
        RecordingReader kafka = new RecordingReader();
        PromptCommitSource.Reader<String> reader = new PromptCommitSource.Reader<>(kafka);
        reader.notifyCheckpointComplete(1);
        assertEquals(List.of("complete 1"), kafka.calls, "no splits yet: nothing to wake");

        reader.addSplits(List.of(split(0), split(1), split(2)));
        reader.pauseOrResumeSplits(List.of("t-1"), List.of()); // e.g. watermark alignment
        kafka.calls.clear();
        reader.notifyCheckpointComplete(2);
        assertEquals(List.of("complete 2", "pause [] resume [t-0, t-2]"), sorted(kafka.calls),
                "the commit first, then a no-op resume of the splits that run; the paused one stays paused");

        reader.pauseOrResumeSplits(List.of(), List.of("t-1"));
        kafka.calls.clear();
        reader.notifyCheckpointComplete(3);
        assertEquals(List.of("complete 3", "pause [] resume [t-0, t-1, t-2]"), sorted(kafka.calls));
    }

    private static List<String> sorted(List<String> calls) {
        List<String> out = new ArrayList<>();
        for (String c : calls) {
            if (c.startsWith("pause")) {
                String ids = c.substring(c.indexOf("resume [") + 8, c.length() - 1);
                List<String> sortedIds = new ArrayList<>(List.of(ids.split(", ")));
                sortedIds.sort(null);
                c = c.substring(0, c.indexOf("resume [") + 8) + String.join(", ", sortedIds) + "]";
            }
            out.add(c);
        }
        return out;
    }

    private static KafkaPartitionSplit split(int partition) {
        return new KafkaPartitionSplit(new TopicPartition("t", partition), 0);
    }

    /** Records the calls the wrapper passes on. */
    private static final class RecordingReader implements SourceReader<String, KafkaPartitionSplit> {
        final List<String> calls = new ArrayList<>();

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            calls.add("complete " + checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
            calls.add("pause " + toPause + " resume " + toResume);
        }

        @Override
        public void addSplits(List<KafkaPartitionSplit> splits) {}

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<String> output) {
            return InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
            return List.of();
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return new CompletableFuture<>();
        }

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void close() {}
    }
}
