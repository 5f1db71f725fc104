package io.streamtrain.train.run;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.export.SourceOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.kafka.common.TopicPartition;

/**
 * A run's own durable progress: where its Kafka sources stood in the newest checkpoint its job
 * completed ({@code DIR/<job id>/chk-<n>}), read from that checkpoint ({@link SourceOffsets}) each
 * time a newer one appears. Consumer groups are not read: an earlier run of the same name left its
 * offsets there, and a group's offsets trail the checkpoint they are committed for. Offsets only
 * move forward, so counts derived from them never go backwards.
 */
public final class CheckpointedProgress {
    private final Path checkpointDir;
    private final Map<String, Map<TopicPartition, Long>> offsets = new HashMap<>();
    private final Set<String> read = new HashSet<>();

    /**
     * @param checkpointDir the run's checkpoint directory (Flink's {@code execution.checkpointing.dir})
     * @param from per source uid, where the run's source starts: its offsets until a checkpoint has some
     */
    public CheckpointedProgress(Path checkpointDir, Map<String, Map<TopicPartition, Long>> from) {
        this.checkpointDir = checkpointDir;
        from.forEach((uid, offsets) -> this.offsets.put(uid, new HashMap<>(offsets)));
    }

    /** Reads the newest checkpoint {@code job} completed, unless read already; returns whether it read one. */
    public boolean refresh(JobID job) {
        try {
            ModelStorage.refreshCheckpoints(checkpointDir);
        } catch (UncheckedIOException e) {
            return false; // remote storage unreachable for now: a later poll reads the newest checkpoint
        }
        Optional<Path> newest = newestCheckpoint(checkpointDir.resolve(job.toString()));
        if (newest.isEmpty() || !read.add(job + "/" + newest.get().getFileName())) {
            return false;
        }
        try {
            for (Map.Entry<String, Map<TopicPartition, Long>> source : offsets.entrySet()) {
                SourceOffsets.of(newest.get(), source.getKey()).forEach((tp, offset) -> source.getValue().merge(tp, offset, Math::max));
            }
            return true;
        } catch (IOException e) {
            // Subsumed and deleted, or its metadata still being written: a later poll reads a newer one.
            read.remove(job + "/" + newest.get().getFileName());
            return false;
        }
    }

    /** The source's offsets in the newest checkpoint read (where it has none, where it started). */
    public Map<TopicPartition, Long> offsets(String sourceUid) {
        return Map.copyOf(offsets.get(sourceUid));
    }

    /** Completed checkpoints of this run read so far. */
    public int checkpointsRead() {
        return read.size();
    }

    /** The highest-numbered {@code chk-<n>} with its {@code _metadata} written: Flink writes that last, on completion. */
    private static Optional<Path> newestCheckpoint(Path jobDir) {
        if (!Files.isDirectory(jobDir)) {
            return Optional.empty();
        }
        try (Stream<Path> entries = Files.list(jobDir)) {
            return entries.filter(p -> p.getFileName().toString().matches("chk-\\d+") && Files.isRegularFile(p.resolve("_metadata")))
                    .max((a, b) -> Long.compare(number(a), number(b)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static long number(Path checkpoint) {
        return Long.parseLong(checkpoint.getFileName().toString().substring("chk-".length()));
    }
}
