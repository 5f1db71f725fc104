package io.streamtrain.export;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain export}: a checkpoint's embedding table as JSON lines. */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Writes every row of the newest retained checkpoint (or of --path) as one JSON object per line:"
                + " field, id, vector, count, optimizer. Safe while training keeps running.")
public final class ExportCommand implements Callable<Integer> {
    @Option(names = "--checkpoint", required = true, description = "The train --checkpoint-dir.")
    Path checkpointDir;

    @Option(names = "--path", description = "A specific chk-N or savepoint directory (default: the newest in --checkpoint).")
    Path path;

    @Option(names = "--out", required = true, description = "Output .jsonl file.")
    Path out;

    @Override
    public Integer call() throws Exception {
        ModelInfo info = ModelInfo.read(checkpointDir);
        Path checkpoint = path != null ? path : LatestCheckpoint.in(checkpointDir);
        long started = System.nanoTime();
        ObjectMapper json = new ObjectMapper().configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
        long rows;
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            rows = CheckpointRows.read(checkpoint, info, row -> {
                try {
                    json.writeValue(w, new JsonRow(row.field(), row.id(), row.vector(), row.count(), info.optimizer()));
                    w.newLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        System.out.printf("export: rows=%d checkpoint=%s out=%s seconds=%.1f%n", rows, checkpoint, out, (System.nanoTime() - started) / 1e9);
        return 0;
    }

    /** The documented JSON line layout. */
    record JsonRow(int field, long id, float[] vector, long count, String optimizer) {}
}
