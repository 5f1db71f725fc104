package io.streamtrain.contract;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a checkpoint directory's model is: written by {@code train} beside its checkpoints as
 * {@code model.json}, read by {@code export} and {@code score} to decode and use the rows.
 *
 * @param rowTtlMs the row TTL the job ran with, or 0 (TTL changes how state is serialised)
 * @param fields the deep models' input fields (0 for lr and fm; see {@link ModelShape})
 * @param hidden the deep models' MLP widths (empty for lr and fm)
 * @param crossLayers DCN's cross layers (0 otherwise)
 */
public record ModelInfo(String name, String topic, String model, int dim, String optimizer, long rowTtlMs, int maxParallelism,
                        int fields, List<Integer> hidden, int crossLayers) {
    public static final String FILE = "model.json";
    private static final ObjectMapper JSON = new ObjectMapper();

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

    public void write(Path checkpointDir) throws IOException {
        Files.createDirectories(checkpointDir);
        JSON.writerWithDefaultPrettyPrinter().writeValue(checkpointDir.resolve(FILE).toFile(), this);
    }

    public static ModelInfo read(Path checkpointDir) throws IOException {
        Path file = checkpointDir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new IOException("no " + FILE + " in " + checkpointDir + ": is this a streamtrain --checkpoint-dir?");
        }
        return JSON.readValue(file.toFile(), ModelInfo.class);
    }
}
