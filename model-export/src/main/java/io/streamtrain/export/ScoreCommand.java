package io.streamtrain.export;

import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code streamtrain score}: one probability per input line, with the newest checkpoint's model. */
@Command(name = "score", mixinStandardHelpOptions = true,
        description = "Scores a file with the model in the newest retained checkpoint of --checkpoint, one probability per "
                + "input line and in order. A line that does not parse gets NaN and is counted (with its reason on stderr).")
public final class ScoreCommand implements Callable<Integer> {
    @Option(names = "--checkpoint", required = true, description = "The train --checkpoint-dir.")
    Path checkpointDir;

    @Option(names = "--file", required = true, description = "Input file in --format.")
    Path file;

    @Option(names = "--format", required = true, description = "libsvm, libffm or criteo (as ingested).")
    String format;

    @Option(names = "--hash-bits", defaultValue = "24", description = "Criteo hashing bits, as at ingest (default: ${DEFAULT-VALUE}).")
    int hashBits;

    @Option(names = "--out", required = true, description = "Output file: one probability per line.")
    Path out;

    @Override
    public Integer call() throws Exception {
        LoadedModel model = LoadedModel.load(checkpointDir);
        LineParser parser = LineFormat.fromName(format).parser(ParseOptions.defaults(file.toString()).withHashBits(hashBits));
        long lines = 0;
        long bad = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
                BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                lines++;
                ParseResult result = parser.parse(line, lines);
                if (result instanceof ParseResult.Ok ok) {
                    w.write(String.format(Locale.ROOT, "%.6f", model.predict(ok.example())));
                } else {
                    ParseResult.Rejected rejected = (ParseResult.Rejected) result;
                    bad++;
                    System.err.println("score: line " + lines + ": " + rejected.reason().code() + ": " + rejected.detail());
                    w.write("NaN");
                }
                w.newLine();
            }
        }
        System.out.printf("score: lines=%d bad=%d rows=%d out=%s%n", lines, bad, model.rows(), out);
        return 0;
    }
}
