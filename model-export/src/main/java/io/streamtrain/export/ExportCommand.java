package io.streamtrain.export;

import io.streamtrain.contract.ModelStorage;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.files.OutputFile;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.format.ParseOptions;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain export}: a checkpoint's model as a serving bundle and/or JSON lines. */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Reads the model of the newest retained checkpoint of --checkpoint (or of --savepoint) and writes"
                + " a serving bundle (--bundle: rows in RocksDB, bias, model-card.json with row count and checksum) and/or"
                + " every row as one JSON object per line (--out: field, id, vector, count, optimizer; a deep model's dense"
                + " parameter blocks as dense, count, values). Safe while"
                + " training keeps running.")
public final class ExportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--checkpoint", paramLabel = "DIR", description = "The train --checkpoint-dir (its newest checkpoint, its model.json).")
    Path checkpointDir;

    @Option(names = {"--savepoint", "--path"}, paramLabel = "DIR",
            description = "A specific chk-N or savepoint directory instead of the newest; model.json is taken from"
                    + " --checkpoint, or looked for beside it and two levels up.")
    Path path;

    @Option(names = "--bundle", paramLabel = "DIR", description = "Write a serving bundle into this new (or empty) directory.")
    Path bundle;

    @Option(names = "--out", paramLabel = "FILE", description = "Write every row as JSON lines to this file.")
    Path out;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "Line format the training data was ingested from (libsvm, libffm, criteo, csv, jsonl, avazu), recorded in the"
                    + " model card so serving can score raw lines. Default: none (features only).")
    String format;

    @Option(names = "--mapping", paramLabel = "FILE",
            description = "With --format csv or jsonl (required) or avazu (default builtin:avazu): the feature mapping used at"
                    + " ingest, a file or builtin:NAME; the model card carries it, so scoring featurises raw rows the same way.")
    String mapping;

        @Option(names = "--hash-bits", defaultValue = "" + ParseOptions.DEFAULT_HASH_BITS, paramLabel = "BITS",
            description = "Criteo hashing bits used at ingest, recorded in the model card (default: ${DEFAULT-VALUE}).")
    int hashBits;

    private ModelCard.FeatureMapping cardMapping() throws IOException {
        LineFormat f = format == null ? null : LineFormat.fromName(format);
        if (f == null || !f.isMapped()) {
            if (mapping != null) {
                throw new ParameterException(spec.commandLine(), "--mapping applies to --format csv, jsonl and avazu");
            }
            return ModelCard.FeatureMapping.of(f == null ? null : f.cliName(), hashBits);
        }
        if (mapping == null && f != LineFormat.AVAZU) {
            throw new ParameterException(spec.commandLine(), "--format " + f.cliName() + " needs --mapping FILE (as at ingest)");
        }
        FeatureMapping m = FeatureMapping.load(mapping != null ? mapping : "builtin:avazu");
        if (f == LineFormat.CSV && m.csv().columns() == null) {
            throw new ParameterException(spec.commandLine(), "scoring reads CSV rows without a header: declare \"columns\" in "
                    + mapping);
        }
        return ModelCard.FeatureMapping.of(f.cliName(), m);
    }

    @Option(names = "--jobmanager", paramLabel = "HOST:PORT",
            description = "Export the running training job of --checkpoint DIR through a savepoint taken for this export (the job"
                    + " keeps running; the savepoint goes to DIR/" + RequestedSavepoint.DIRECTORY + " and is deleted afterwards):"
                    + " unlike its newest checkpoint, it cannot be subsumed while it is read, however often the job checkpoints.")
    String jobManager;

    @Option(names = "--job", paramLabel = "ID",
            description = "With --jobmanager: the job to take the savepoint of (default: the one running job of the model's name).")
    String job;

    /** How often the newest checkpoint is read again when the job subsumed (deleted) the one being read. */
    static final int SUBSUMED_RETRIES = 5;

    @Override
    public Integer call() throws Exception {
        if (checkpointDir == null && path == null) {
            throw new ParameterException(spec.commandLine(), "give --checkpoint DIR or --savepoint DIR");
        }
        if (bundle == null && out == null) {
            throw new ParameterException(spec.commandLine(), "give --bundle DIR and/or --out FILE");
        }
        if (jobManager != null && (checkpointDir == null || path != null)) {
            throw new ParameterException(spec.commandLine(), "--jobmanager exports the running job of --checkpoint DIR: give --checkpoint, not --savepoint");
        }
        if (job != null && jobManager == null) {
            throw new ParameterException(spec.commandLine(), "--job goes with --jobmanager");
        }
        if ((bundle != null && ModelStorage.isRemote(bundle)) || (out != null && ModelStorage.isRemote(out))) {
            throw new ParameterException(spec.commandLine(), "--bundle and --out are written locally; copy them to remote storage afterwards");
        }
        ModelCard.FeatureMapping cardMapping = cardMapping();
        Path trainDir = checkpointDir != null ? checkpointDir : modelInfoNear(path);
        ModelInfo info = ModelInfo.read(trainDir);
        if (jobManager != null) {
            try (RequestedSavepoint savepoint = RequestedSavepoint.take(jobManagerAddress(), Optional.ofNullable(job).map(JobID::fromHexString),
                    ModelInfo.jobName(info.name()), ModelStorage.flinkPath(checkpointDir))) {
                export(ModelStorage.local(savepoint.path().toString()), trainDir, info, cardMapping);
            }
            return 0;
        }
        if (path != null) {
            export(path, trainDir, info, cardMapping);
            return 0;
        }
        for (int attempt = 0; ; attempt++) {
            Path newest = LatestCheckpoint.in(checkpointDir);
            try {
                export(newest, trainDir, info, cardMapping);
                return 0;
            } catch (Exception e) {
                if (ModelStorage.isFile(newest.resolve(CheckpointFiles.METADATA)) || attempt >= SUBSUMED_RETRIES) {
                    throw e;
                }
                // The running job subsumed the checkpoint while it was read: a newer one is there.
                System.err.println("export: " + newest + " was subsumed by a newer checkpoint while it was read; reading the newest"
                        + " again (--jobmanager reads a savepoint of its own instead)");
            }
        }
    }

    private URI jobManagerAddress() {
        URI rest = URI.create(jobManager.contains("://") ? jobManager : "http://" + jobManager);
        if (rest.getHost() == null || rest.getPort() < 0) {
            throw new ParameterException(spec.commandLine(), "--jobmanager " + jobManager + " is not HOST:PORT (the JobManager's REST address)");
        }
        return rest;
    }

    private void export(Path checkpoint, Path trainDir, ModelInfo info, ModelCard.FeatureMapping cardMapping) throws Exception {
        try {
            exportVerified(checkpoint, info, cardMapping);
        } catch (CheckpointFiles.DamagedCheckpointException e) { // found before anything was written
            String older = LatestCheckpoint.olderThan(trainDir, checkpoint).map(Path::toString).orElse(null);
            throw new IOException(e.getMessage() + "; export "
                    + (older != null ? "the next older checkpoint with --savepoint " + older : "another checkpoint or savepoint with --savepoint DIR"), e);
        }
    }

    /** Each read of the checkpoint checks it first ({@link CheckpointRows}). */
    private void exportVerified(Path checkpoint, ModelInfo info, ModelCard.FeatureMapping cardMapping) throws Exception {
        if (bundle != null) {
            long started = System.nanoTime();
            ModelCard card = BundleWriter.write(checkpoint, info, cardMapping, bundle,
                    System.err, 1_000_000);
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf(Locale.ROOT, "export: bundle=%s rows=%d checksum=%s checkpoint=%s seconds=%.1f rows_per_s=%.0f%n",
                    bundle, card.contents().rows(), card.contents().checksum(), checkpoint, seconds, card.contents().rows() / seconds);
        }
        if (out != null) {
            writeJsonLines(checkpoint, info);
        }
    }

    private void writeJsonLines(Path checkpoint, ModelInfo info) throws Exception {
        long started = System.nanoTime();
        ObjectMapper json = new ObjectMapper().configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
        long rows = OutputFile.write(out, partial -> {
            try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(partial), 1 << 20)) {
                DenseBlocks tower = new DenseBlocks(info.shape().denseLayout());
                List<JsonLines> parts = Collections.synchronizedList(new ArrayList<>());
                CheckpointRows.read(checkpoint, info, () -> {
                    JsonLines part = new JsonLines(json, file);
                    parts.add(part);
                    return row -> {
                        boolean dense;
                        synchronized (tower) {
                            dense = tower.take(row);
                        }
                        if (!dense) {
                            part.add(new JsonRow(row.field(), row.id(), row.vector(), row.count(), info.optimizer()));
                        }
                    };
                });
                JsonLines blocks = new JsonLines(json, file);
                parts.add(blocks);
                for (DenseBlocks.Block block : tower.blocks()) { // whole blocks, by name, not the PS's chunks
                    blocks.add(new JsonDenseBlock(block.name(), block.count(), block.values()));
                }
                long n = 0;
                for (JsonLines part : parts) {
                    n += part.flush();
                }
                return n;
            }
        });
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "export: rows=%d checkpoint=%s out=%s seconds=%.1f rows_per_s=%.0f%n", rows, checkpoint, out, seconds,
                rows / seconds);
    }

    /**
     * One reader task's JSON lines, encoded on its own thread into a buffer that goes to the shared
     * file in large pieces (the file's lock held only for a copy), so encoding runs in parallel.
     */
    private static final class JsonLines {
        private static final int PIECE = 1 << 20;
        private final ObjectMapper json;
        private final OutputStream file;
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(PIECE + (PIECE >> 2));
        private long lines;

        JsonLines(ObjectMapper json, OutputStream file) {
            this.json = json;
            this.file = file;
        }

        void add(Object value) {
            try {
                json.writeValue(buffer, value);
                buffer.write('\n');
                lines++;
                if (buffer.size() >= PIECE) {
                    flush();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Writes what is buffered to the file; returns the lines written so far. */
        long flush() throws IOException {
            synchronized (file) {
                buffer.writeTo(file);
            }
            buffer.reset();
            return lines;
        }
    }

    /** A checkpoint is DIR/job/chk-N with DIR/model.json; a savepoint may carry one of its own. */
    private Path modelInfoNear(Path p) throws IOException {
        Path dir = p.toAbsolutePath();
        for (int up = 0; up <= 2 && dir != null; up++, dir = dir.getParent()) {
            if (ModelStorage.isFile(dir.resolve(ModelInfo.FILE))) {
                return dir;
            }
        }
        throw new ParameterException(spec.commandLine(),
                "no " + ModelInfo.FILE + " beside " + p + " or above it: pass --checkpoint DIR (the train --checkpoint-dir)");
    }

    /** The documented JSON line layout. */
    record JsonRow(int field, long id, float[] vector, long count, String optimizer) {}

    /** One dense parameter block of a deep model ({@code DenseLayout}): its name, the examples that trained it, its values. */
    record JsonDenseBlock(String dense, long count, float[] values) {}
}
