package io.streamtrain.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.bundle.TestTables;
import io.streamtrain.contract.ModelInfo;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.ArrayList;
import java.util.Set;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.model.deep.DenseBlock;
import io.streamtrain.model.deep.DenseLayout;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code export} of a damaged checkpoint fails before writing anything, naming the damaged file and what to do. */
class ExportCommandTest {
    private static final ModelInfo INFO = TestTables.info("lr", 1);
    /** Enough that the state is a file of its own, not kept inside _metadata. */
    private static final int ROWS = 3000;

    @TempDir
    static Path dir;
    static Path savepoint;

    @BeforeAll
    static void writeTable() throws Exception {
        savepoint = TestTables.write(dir.resolve("savepoint"), INFO, ROWS);
    }

    @Test
    void aWholeCheckpointExportsAllRows() throws Exception {
        Path out = dir.resolve("whole.jsonl");
        Failure f = export("--savepoint", savepoint.toString(), "--out", out.toString());
        assertEquals(0, f.exitCode, String.valueOf(f.exception));
        assertEquals(ROWS + 1, Files.readAllLines(out).size());
        assertEquals(List.of(), partialFilesIn(dir));
    }

    @Test
    void aDeepModelsDenseBlocksAreOneJsonObjectEach() throws Exception {
        ModelInfo info = TestTables.deepInfo("dcn", 3);
        Path deep = TestTables.write(dir.resolve("dcn-savepoint"), info, 200);
        Path out = dir.resolve("dcn.jsonl");

        Failure f = export("--savepoint", deep.toString(), "--out", out.toString());

        assertEquals(0, f.exitCode, String.valueOf(f.exception));
        DenseLayout layout = info.shape().denseLayout();
        float[] trained = new float[layout.size()];
        layout.initialValues(TestTables.DENSE_SEED, 0, trained);
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            lines.add(json.readTree(line));
        }
        List<JsonNode> dense = lines.stream().filter(n -> n.has("dense")).toList();
        assertEquals(layout.names(), dense.stream().map(n -> n.get("dense").asText()).toList(), "every block once, in layout order");
        for (JsonNode block : dense) {
            DenseBlock b = layout.block(block.get("dense").asText());
            assertEquals(Set.of("dense", "count", "values"), fieldNames(block));
            assertEquals(5000, block.get("count").asLong());
            assertEquals(b.size(), block.get("values").size(), b.name());
            for (int i = 0; i < b.size(); i++) {
                assertEquals(trained[b.offset() + i], (float) block.get("values").get(i).asDouble(), b.name() + "[" + i + "]");
            }
        }
        assertEquals(200 + 1, lines.size() - dense.size(), "the sparse rows and the bias as before, no chunk rows");
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new java.util.HashSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void aTruncatedStateFileIsNamedAndNothingIsWritten() throws Exception {
        Path copy = copyOf(savepoint, dir.resolve("truncated"));
        Path state = largestStateFile(copy);
        try (RandomAccessFile f = new RandomAccessFile(state.toFile(), "rw")) {
            f.setLength(f.length() / 2);
        }
        Path out = dir.resolve("truncated.jsonl");
        Path bundle = dir.resolve("truncated-bundle");

        Failure f = export("--savepoint", copy.toString(), "--out", out.toString(), "--bundle", bundle.toString());

        assertEquals(1, f.exitCode);
        String message = f.exception.getMessage();
        assertTrue(message.contains(state.toString()) && message.contains("bytes where its _metadata recorded"), message);
        assertTrue(message.contains("--savepoint"), message);
        assertFalse(Files.exists(out), "no output file");
        assertFalse(Files.exists(bundle), "no bundle");
        assertEquals(List.of(), partialFilesIn(dir));
    }

    @Test
    void aCorruptMetadataFileIsNamed() throws Exception {
        Path copy = copyOf(savepoint, dir.resolve("corrupt-metadata"));
        Path metadata = copy.resolve(CheckpointFiles.METADATA);
        try (RandomAccessFile f = new RandomAccessFile(metadata.toFile(), "rw")) {
            f.setLength(f.length() - 7);
        }
        Path out = dir.resolve("corrupt.jsonl");

        Failure f = export("--savepoint", copy.toString(), "--out", out.toString());

        assertEquals(1, f.exitCode);
        String message = f.exception.getMessage();
        assertTrue(message.contains(metadata.toString() + " cannot be read (EOFException"), message);
        assertFalse(message.contains("null"), message);
        assertFalse(Files.exists(out));
    }

    private record Failure(int exitCode, Exception exception) {}

    private static Failure export(String... args) {
        Exception[] thrown = new Exception[1];
        int code = new CommandLine(new ExportCommand())
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    thrown[0] = e;
                    return 1;
                })
                .execute(args);
        if (code != 0) {
            assertNotNull(thrown[0], "a failed export throws");
        }
        return new Failure(code, thrown[0]);
    }

    private static Path largestStateFile(Path checkpoint) throws IOException {
        try (Stream<Path> files = Files.list(checkpoint)) {
            return files.filter(p -> !p.getFileName().toString().equals(CheckpointFiles.METADATA)
                            && !p.getFileName().toString().equals(ModelInfo.FILE))
                    .max(Comparator.comparingLong(p -> p.toFile().length()))
                    .orElseThrow();
        }
    }

    private static List<Path> partialFilesIn(Path d) throws IOException {
        try (Stream<Path> files = Files.list(d)) {
            return files.filter(p -> p.getFileName().toString().contains(".partial-")).toList();
        }
    }

    private static Path copyOf(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
        return to;
    }
}
