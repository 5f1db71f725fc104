package io.streamtrain.contract;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a checkpoint directory's model is: written by {@code train} beside its checkpoints as
 * {@code model.json}, read by {@code export} and {@code score} to decode and use the rows.
 *
 * @param rowTtlMs the row TTL the job ran with, or 0 (TTL changes how state is serialised)
 */
public record ModelInfo(String name, String topic, String model, int dim, String optimizer, long rowTtlMs, int maxParallelism) {
    public static final String FILE = "model.json";
    private static final ObjectMapper JSON = new ObjectMapper();

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
