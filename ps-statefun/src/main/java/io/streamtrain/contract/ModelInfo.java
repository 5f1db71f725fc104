package io.streamtrain.contract;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * What a checkpoint directory's model is: written by the training job beside its checkpoints as
 * {@code model.json} when it is built (on whichever cluster, into whichever file system Flink
 * reaches: a local directory, {@code s3://…}), read by {@code export} and {@code score} to decode
 * and use the rows.
 *
 * @param rowTtlMs the row TTL the job ran with, or 0 (TTL changes how state is serialised)
 * @param fields the deep models' input fields (0 for lr and fm; see {@link ModelShape})
 * @param hidden the deep models' MLP widths (empty for lr and fm)
 * @param crossLayers DCN's cross layers (0 otherwise)
 */
public record ModelInfo(String name, String topic, String model, int dim, String optimizer, long rowTtlMs, int maxParallelism,
                        int fields, List<Integer> hidden, int crossLayers) {
    public static final String FILE = "model.json";
    private static final ObjectMapper JSON = new ObjectMapper().configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);

    public ModelInfo {
        hidden = hidden == null ? List.of() : List.copyOf(hidden); // a model.json written before deep models has none
    }

    /** The info of a model without a dense tower (lr, fm). */
    public ModelInfo(String name, String topic, String model, int dim, String optimizer, long rowTtlMs, int maxParallelism) {
        this(name, topic, model, dim, optimizer, rowTtlMs, maxParallelism, 0, List.of(), 0);
    }

    /** What fixes the model's math: the exporter and scorer build the model from it. */
    public ModelShape shape() {
        return new ModelShape(ModelKind.parse(model), dim, fields, hidden, crossLayers);
    }

    public void write(java.nio.file.Path checkpointDir) throws IOException {
        write(ModelStorage.flinkPath(checkpointDir));
    }

    /** Writes {@code model.json} into {@code checkpointDir} (any file system Flink has), replacing one there. */
    public void write(Path checkpointDir) throws IOException {
        FileSystem fs = checkpointDir.getFileSystem();
        fs.mkdirs(checkpointDir);
        try (OutputStream out = fs.create(new Path(checkpointDir, FILE), FileSystem.WriteMode.OVERWRITE)) {
            JSON.writerWithDefaultPrettyPrinter().writeValue(out, this);
        }
    }

    public static ModelInfo read(java.nio.file.Path checkpointDir) throws IOException {
        return read(ModelStorage.flinkPath(checkpointDir));
    }

    public static ModelInfo read(Path checkpointDir) throws IOException {
        Path file = new Path(checkpointDir, FILE);
        FileSystem fs = file.getFileSystem();
        if (!fs.exists(file)) {
            throw new IOException("no " + FILE + " in " + checkpointDir + ": is this a streamtrain --checkpoint-dir?");
        }
        try (InputStream in = fs.open(file)) {
            return JSON.readValue(in, ModelInfo.class);
        }
    }

    /** The Flink job name of the training job of the model {@code name}: how a running model's job is found. */
    public static String jobName(String name) {
        return "streamtrain-train " + name;
    }
}
