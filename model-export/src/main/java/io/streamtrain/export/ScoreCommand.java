package io.streamtrain.export;

import io.streamtrain.contract.ModelStorage;
import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.LocalBundle;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.djl.DjlScorer;
import io.streamtrain.files.OutputFile;
import io.streamtrain.ingest.format.InputLines;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.schema.Example;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain score}: one probability per input line, from a bundle (DJL) or the newest checkpoint. */
@Command(name = "score", mixinStandardHelpOptions = true,
        description = "Scores a file, one probability per input line and in order: with --bundle on DJL's PyTorch engine"
                + " (offline, natives from the jar), with --checkpoint with the trainer's own math over the newest retained"
                + " checkpoint. A line that does not parse gets NaN and is counted (with its reason on stderr).")
public final class ScoreCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    static final class Source {
        @Option(names = "--bundle", paramLabel = "DIR", description = "A bundle written by export --bundle (scored with DJL).")
        Path bundle;

        @Option(names = "--checkpoint", paramLabel = "DIR", description = "The train --checkpoint-dir (its newest checkpoint).")
        Path checkpointDir;
    }

    @Option(names = "--file", required = true, description = "Input file in --format.")
    Path file;

    @Option(names = "--format", description = "libsvm, libffm, criteo or avazu (as ingested). Default with --bundle: the model"
            + " card's, with its feature mapping for csv, jsonl and avazu (a CSV file's header line gets no probability).")
    String format;

    @Option(names = "--hash-bits", description = "Criteo hashing bits, as at ingest. Default: the model card's with --bundle, else "
            + ParseOptions.DEFAULT_HASH_BITS + ".")
    Integer hashBits;

    @Option(names = "--out", required = true, description = "Output file: one probability per line.")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (source.bundle != null) {
            try (LocalBundle local = LocalBundle.of(source.bundle); Bundle bundle = Bundle.open(local.dir()); DjlScorer djl = DjlScorer.open(bundle)) {
                ModelCard.FeatureMapping mapping = bundle.card().mapping();
                System.err.println("score: " + bundle.card().modelType() + " bundle " + ModelStorage.location(source.bundle) + " on " + djl.engine());
                LineParser parser = format == null && hashBits == null
                        ? mapping.parser(ParseOptions.defaults(file.toString()))
                        : parser(format != null ? format : mapping.inputFormat(), hashBits != null ? hashBits : mapping.hashBits());
                if (parser == null) {
                    throw new ParameterException(spec.commandLine(), "give --format: the bundle's model card records no input format");
                }
                return score(parser, djl::predict, bundle.card().contents().rows() + 1);
            }
        }
        LoadedModel model = LoadedModel.load(source.checkpointDir);
        return score(parser(format, hashBits != null ? hashBits : ParseOptions.DEFAULT_HASH_BITS), model::predict, model.rows());
    }

    private LineParser parser(String formatName, int bits) {
        if (formatName == null) {
            throw new ParameterException(spec.commandLine(), "give --format: the bundle's model card records no input format");
        }
        try {
            return LineFormat.fromName(formatName).parser(ParseOptions.defaults(file.toString()).withHashBits(bits));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage() + "; score a bundle exported with it instead");
        }
    }

    private int score(LineParser parser, ToDoubleFunction<Example> model, long rows) throws Exception {
        long[] counts = OutputFile.write(out, partial -> scoreInto(partial, parser, model));
        System.out.printf("score: lines=%d bad=%d rows=%d out=%s%n", counts[0], counts[1], rows, out);
        return 0;
    }

    /** Writes one probability per line of the input to {@code to}; returns the lines and the bad ones among them. */
    private long[] scoreInto(Path to, LineParser parser, ToDoubleFunction<Example> model) throws Exception {
        long lines = 0;
        long bad = 0;
        try (InputLines in = new InputLines(Files.newInputStream(file));
                BufferedWriter w = Files.newBufferedWriter(to, StandardCharsets.UTF_8)) {
            if (parser.expectsHeader()) { // a CSV file's header line: no probability for it
                String header = in.next();
                lines++;
                if (header != null) {
                    parser = parser.afterHeader(header);
                }
            }
            for (String line; (line = in.next()) != null; ) {
                lines++;
                ParseResult result = parser.parse(line, lines);
                if (result instanceof ParseResult.Ok ok) {
                    w.write(String.format(Locale.ROOT, "%.6f", model.applyAsDouble(ok.example())));
                } else {
                    ParseResult.Rejected rejected = (ParseResult.Rejected) result;
                    bad++;
                    System.err.println("score: line " + lines + ": " + rejected.reason().code() + ": " + rejected.detail());
                    w.write("NaN");
                }
                w.newLine();
            }
        }
        return new long[] {lines, bad};
    }
}
