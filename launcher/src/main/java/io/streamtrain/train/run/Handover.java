package io.streamtrain.train.run;

import java.io.InputStream;
import io.streamtrain.contract.ModelStorage;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.contract.LatestCheckpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What a backfill leaves for the job that continues from its savepoint ({@code handover.json}
 * beside it): the topic and, per partition, the offset the backfill's range ended at. The
 * savepoint holds no state for the streaming source (the backfill's source has its own uid), so
 * the continuing job starts its source exactly there: no gap, and the batcher, restored with its
 * per-partition next offset, drops anything below it.
 */
public record Handover(String topic, String savepoint, Map<Integer, Long> offsets) {
    public static final String FILE = "handover.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public void write(Path dir) throws IOException {
        ModelStorage.write(dir.resolve(FILE), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(this));
    }

    /** The hand-over of a backfill output directory, or of the savepoint inside one. */
    public static Optional<Handover> find(Path dirOrSavepoint) throws IOException {
        for (Path dir : new Path[] {dirOrSavepoint, dirOrSavepoint.toAbsolutePath().getParent()}) {
            if (dir != null && ModelStorage.isFile(dir.resolve(FILE))) {
                try (InputStream in = ModelStorage.open(dir.resolve(FILE))) {
                    return Optional.of(JSON.readValue(in, Handover.class));
                }
            }
        }
        return Optional.empty();
    }

    /** The savepoint or checkpoint a path names: itself (it has {@code _metadata}), or the newest one in the directory. */
    public static Path savepointIn(Path path) throws IOException {
        if (ModelStorage.isFile(path.resolve("_metadata"))) {
            return path;
        }
        return LatestCheckpoint.in(path);
    }
}
